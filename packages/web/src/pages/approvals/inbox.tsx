import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, href, must } from '../../api/client';
import { Page } from '../../ui/page';
import { useLoadMore } from '../../ui/paged';
import { ProblemNote } from '../../ui/problem';
import './inbox.css';
import { InboxItem, type Item } from './item';

const STATUSES = ['pending', 'approved', 'rejected', 'expired', 'all'] as const;
type StatusFilter = (typeof STATUSES)[number];

const keyOf = (item: Item) => `${item.kind}:${item.id}`;

/** What waits for a person across the org (tool calls and action runs), or what was decided. */
export default function ApprovalsInbox({ org }: { org: string }) {
  const { query, route } = useLocation();
  const status: StatusFilter = STATUSES.includes(query.status as StatusFilter)
    ? (query.status as StatusFilter)
    : 'pending';
  const [said, setSaid] = useState('');
  const [generation, setGeneration] = useState(0);
  const saidRef = useRef<HTMLParagraphElement>(null);

  const {
    rows: items,
    setRows: setItems,
    loading,
    error,
    hasMore,
    more,
  } = useLoadMore(
    async (after?: string) => {
      const page = await must(
        api.GET('/api/{org}/approvals', {
          params: { path: { org }, query: { status, limit: 50, ...(after ? { cursor: after } : {}) } },
        }),
      );
      return { rows: page.approvals, nextCursor: page.nextCursor };
    },
    [org, status, generation],
  );

  const onDecided = (item: Item, decision: string) => {
    const name = item.kind === 'tool_call' ? item.tool : `${item.connectorKey}.${item.actionKey}`;
    setSaid(`${name}: ${decision}.`);
    // The item (and the button that had the focus) goes away: the focus goes to what was said,
    // once it is rendered.
    setTimeout(() => saidRef.current?.focus());
    // Decided, it is no longer pending; in another list it shows its new status.
    if (status === 'pending') setItems((previous) => previous.filter((i) => keyOf(i) !== keyOf(item)));
    else setGeneration((n) => n + 1);
  };

  return (
    <Page title="Approvals">
      <form class="inline" onSubmit={(event) => event.preventDefault()}>
        <label for="inbox-status">Status</label>
        <select
          id="inbox-status"
          value={status}
          onChange={(event) => {
            const next = (event.target as HTMLSelectElement).value;
            route(href(`/orgs/${org}/approvals${next === 'pending' ? '' : `?status=${next}`}`));
          }}
        >
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </form>
      <p role="status" class="hint inbox-said" tabIndex={-1} ref={saidRef}>
        {said}
      </p>
      <ProblemNote error={error} />
      {!loading && !error && items.length === 0 ? (
        <p class="notice">
          {status === 'pending'
            ? 'Nothing waits for a decision.'
            : `No ${status === 'all' ? '' : `${status} `}approvals.`}
        </p>
      ) : null}
      <ul class="inbox-list" aria-label={`${status} approvals`}>
        {items.map((item) => (
          <InboxItem key={keyOf(item)} org={org} item={item} onDecided={onDecided} />
        ))}
      </ul>
      {loading ? <p aria-busy="true">Loading…</p> : null}
      {hasMore && !loading ? (
        <button type="button" class="secondary" onClick={more}>
          More
        </button>
      ) : null}
    </Page>
  );
}
