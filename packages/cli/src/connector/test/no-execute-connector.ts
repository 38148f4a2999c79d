/** A connector class that forgot `execute`: the loader must name what is missing. */

import { Connector, type ConnectorDefinition, type SyncResult } from '@svc/connector-sdk';

// @ts-expect-error: the point of this fixture is the missing execute()
export default class Forgetful extends Connector {
  readonly definition: ConnectorDefinition = { key: 'forgetful', name: 'Forgetful', version: '1.0.0' };

  async sync(): Promise<SyncResult> {
    return { events: [], checkpoint: null };
  }
}
