/** Exports its class, whose constructor needs options, next to a ready instance. */

import { type ActionResult, Connector, type SyncResult } from '@svc/connector-sdk';

export class Configured extends Connector {
  readonly definition = {
    key: 'configured',
    name: 'Configured',
    version: '1.0.0',
    feeds: { f: { key: 'f', name: 'F' } },
  };
  constructor(private readonly options: { label: string }) {
    super();
  }
  async sync(): Promise<SyncResult> {
    const label = this.options.label;
    return { events: [], checkpoint: { label, quote: "it's" } };
  }
  async execute(): Promise<ActionResult> {
    return { success: false, error: 'read-only' };
  }
}

export default new Configured({ label: 'ready' });
