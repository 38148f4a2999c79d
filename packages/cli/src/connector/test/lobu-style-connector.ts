/**
 * A connector as written for Lobu's SDK: it extends `ConnectorRuntime`, its key is namespaced with
 * a dot, it passes `occurred_at` as a Date, and, read-only, it has no `execute` of its own.
 */

import {
  type ConnectorDefinition,
  ConnectorRuntime,
  type SyncContext,
  type SyncResult,
} from '@svc/connector-sdk';

export default class AcmeNotes extends ConnectorRuntime {
  readonly definition: ConnectorDefinition = {
    key: 'acme.notes',
    name: 'Acme Notes',
    version: '1.0.0',
    feeds: { notes: { key: 'notes', name: 'Notes' } },
  };

  async sync(_ctx: SyncContext): Promise<SyncResult> {
    return {
      events: [
        { origin_id: 'n1', payload_text: 'first note', occurred_at: new Date(Date.UTC(2026, 10, 23, 9)) },
      ],
      checkpoint: null,
    };
  }
}
