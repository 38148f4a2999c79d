import { useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import type { paths } from '../../api/schema';
import { useSession } from '../../session';
import { useAction } from '../../ui/action';
import { Status, Time } from '../../ui/page';
import { ProblemNote } from '../../ui/problem';

export type Watcher =
  paths['/api/{org}/watchers']['get']['responses'][200]['content']['application/json']['watchers'][number];
export type WatcherWindow = NonNullable<Watcher['lastWindow']>;

/** A window as a span of arrival times. */
export function Span({ window }: { window: Pick<WatcherWindow, 'windowStart' | 'windowEnd'> }) {
  return (
    <>
      <Time at={window.windowStart} /> – <Time at={window.windowEnd} />
    </>
  );
}

/** Active or paused, and why it paused (a person, or failures in a row). */
export function WatcherStatus({ watcher }: { watcher: Watcher }) {
  return (
    <>
      <Status value={watcher.status} />
      {watcher.pausedReason ? <span class="hint"> ({watcher.pausedReason})</span> : null}
    </>
  );
}

/**
 * Run now, pause, resume: for a session that may write (a read session sees none of them).
 * `onChanged` reloads what the page shows.
 */
export function WatcherControls(props: { org: string; watcher: Watcher; onChanged: () => void }) {
  const { can } = useSession();
  const [note, setNote] = useState('');
  const { busy, error, act: change } = useAction(() => props.onChanged());
  if (!can('write')) return null;
  const { org, watcher } = props;
  const path = { org, slug: watcher.slug };
  const act = (work: () => Promise<string>) =>
    change(async () => {
      setNote('');
      setNote(await work());
    });
  const run = () =>
    act(async () => {
      const answer = await must(api.POST('/api/{org}/watchers/{slug}/run', { params: { path }, body: {} }));
      return answer.created ? 'A new window was made and starts shortly.' : 'The open window starts now.';
    });
  const setStatus = (status: 'active' | 'paused') =>
    act(async () => {
      await must(api.PATCH('/api/{org}/watchers/{slug}', { params: { path }, body: { status } }));
      return status === 'paused' ? 'Paused.' : 'Resumed.';
    });
  return (
    <div class="watcher-controls">
      <div class="actions">
        <button type="button" disabled={busy || watcher.status === 'paused'} onClick={run}>
          Run now
        </button>
        {watcher.status === 'active' ? (
          <button type="button" class="secondary" disabled={busy} onClick={() => setStatus('paused')}>
            Pause
          </button>
        ) : (
          <button type="button" class="secondary" disabled={busy} onClick={() => setStatus('active')}>
            Resume
          </button>
        )}
      </div>
      <p class="hint" role="status">
        {note}
      </p>
      <ProblemNote error={error} />
    </div>
  );
}
