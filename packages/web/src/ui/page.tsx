import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { Loaded } from './load';
import { ProblemNote } from './problem';

/** A page's heading and title (the browser tab and history say where one is). */
export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · svc`;
  }, [props.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title">{props.title}</h1>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </section>
  );
}

/** What was loaded, or that it is loading, or why it could not be. */
export function Loading<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  const { data, error, loading } = props.loaded;
  if (error) return <ProblemNote error={error} />;
  if (data === undefined) return loading ? <p aria-busy="true">Loading…</p> : null;
  return <>{props.children(data)}</>;
}

/** A time as people read it, with the exact instant on hover and for screen readers' details. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/** A status word with a colour that is not its only sign. */
export function Status({ value }: { value: string }) {
  return <span class={`status status-${value.replace(/[^a-z_]/g, '')}`}>{value}</span>;
}
