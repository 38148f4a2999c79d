import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, must } from '../../api/client';
import { ProblemNote } from '../../ui/problem';
import { ENDED, type LogLine } from './types';

/** Lines read per request; a full page is followed by the next at once. */
const PAGE = 500;
/** How often an open run's log is asked for more. */
const POLL_MS = 1000;
/** The server keeps the latest 1000 lines of a run: the page keeps no more than that either. */
const KEEP = 1000;

const clock = (time: string) => {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? time : date.toLocaleTimeString(undefined, { hour12: false });
};

/**
 * A run's log, followed while the run is open: asked for the lines after the last one read about
 * every second, until the run has ended and no line is left. "Follow" keeps the newest line in
 * view; scrolling up to read stops following.
 */
export function RunLogs(props: { org: string; runId: number; onEnded: () => void }) {
  const { org, runId } = props;
  const [lines, setLines] = useState<LogLine[]>([]);
  const [ended, setEnded] = useState(false);
  const [follow, setFollow] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let after = 0;
    setLines([]);
    setEnded(false);
    const read = async () => {
      try {
        const answer = await must(
          api.GET('/api/{org}/runs/{runId}/logs', {
            params: { path: { org, runId }, query: { after, limit: PAGE } },
          }),
        );
        if (stopped) return;
        setError(null);
        after = answer.nextAfter;
        if (answer.lines.length > 0) setLines((before) => [...before, ...answer.lines].slice(-KEEP));
        // The status is read before the lines: ended and nothing new means nothing more will come.
        if (ENDED.has(answer.runStatus) && answer.lines.length === 0) {
          setEnded(true);
          props.onEnded();
          return;
        }
        timer = setTimeout(read, answer.lines.length === PAGE ? 0 : POLL_MS);
      } catch (failure) {
        if (stopped) return;
        setError(failure as Error);
        timer = setTimeout(read, POLL_MS * 3);
      }
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [org, runId]);

  useLayoutEffect(() => {
    const element = box.current;
    if (follow && element) element.scrollTop = element.scrollHeight;
  }, [lines, follow]);

  const scrolled = () => {
    const element = box.current;
    if (!element) return;
    const atEnd = element.scrollHeight - element.scrollTop - element.clientHeight < 8;
    if (!atEnd && follow) setFollow(false);
  };

  return (
    <>
      <div class="log-head">
        <h2 id="log-title">Log</h2>
        <div class="field-check">
          <input
            type="checkbox"
            id="log-follow"
            checked={follow}
            onChange={(event) => setFollow((event.target as HTMLInputElement).checked)}
          />
          <label for="log-follow">Follow the newest line</label>
        </div>
      </div>
      <ProblemNote error={error} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to be scrolled (WCAG 2.1.1) */}
      <div class="run-log" role="log" aria-labelledby="log-title" tabIndex={0} ref={box} onScroll={scrolled}>
        {lines.length === 0 ? (
          <p class="hint">{ended ? 'The run wrote no line.' : 'No line yet.'}</p>
        ) : (
          <ol>
            {lines.map((line) => (
              <li key={line.seq} class={`log-line level-${line.level}`}>
                <time dateTime={line.time}>{clock(line.time)}</time> <span class="level">{line.level}</span>{' '}
                <span class="msg">{line.msg}</span>
                {line.fields ? <code class="fields">{JSON.stringify(line.fields)}</code> : null}
              </li>
            ))}
          </ol>
        )}
      </div>
      <p class="hint" aria-live="polite">
        {ended
          ? `The run has ended: ${lines.length} lines.`
          : 'Following the run: new lines appear as it writes them.'}
      </p>
    </>
  );
}
