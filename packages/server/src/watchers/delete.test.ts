import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

/**
 * Deleting a watcher while one of its windows settles: the settle holds the window's lock and
 * then updates the watcher; a delete that locked the watcher first and cascaded to the window
 * deadlocked with it (PostgreSQL aborted one of them). Both now end, the delete after the settle.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  const agent = await server.call('POST', '/api/default/agents', {
    body: { agentId: 'scout', name: 'Scout' },
  });
  expect(agent.status).toBe(201);
});

const op = (body: Record<string, unknown>) =>
  server.call('POST', '/api/default/operations/manage_entity_schema', { body });

describe('deleting a watcher', () => {
  it('waits for a window being settled, and neither deadlocks', async () => {
    const made = await op({
      action: 'upsert',
      kind: 'watcher',
      item: { slug: 'busy', name: 'Busy', schedule: '* * * * *', prompt: 'p', agent: 'scout' },
    });
    expect(made.status).toBe(201);
    const { rows } = await server.pool.query<{ id: string; org_id: string }>(
      `INSERT INTO watcher_windows (org_id, watcher_slug, window_start, window_end, status)
       SELECT org_id, slug, now() - interval '2 minutes', now() - interval '1 minute', 'running'
         FROM watchers WHERE slug = 'busy' RETURNING id, org_id`,
    );
    const window = rows[0] as { id: string; org_id: string };

    // A settle under way, as settleWindow takes its locks: the window, and (below) the watcher.
    const settle = await server.pool.connect();
    try {
      await settle.query('BEGIN');
      await settle.query('SELECT id FROM watcher_windows WHERE id = $1 FOR UPDATE', [window.id]);
      const deleting = op({ action: 'delete', kind: 'watcher', slug: 'busy' });
      // The delete is waiting on a lock by now (it cannot have finished: the window is held).
      await new Promise((resolve) => setTimeout(resolve, 300));
      await settle.query(`UPDATE watcher_windows SET status = 'completed' WHERE id = $1`, [window.id]);
      await settle.query(`UPDATE watchers SET consecutive_failures = 0 WHERE org_id = $1 AND slug = 'busy'`, [
        window.org_id,
      ]);
      await settle.query('COMMIT');
      const deleted = await deleting;
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect(deleted.body.result).toBe('deleted');
    } finally {
      settle.release();
    }
    const left = await server.pool.query(`SELECT 1 FROM watcher_windows WHERE watcher_slug = 'busy'`);
    expect(left.rowCount).toBe(0);
  });
});
