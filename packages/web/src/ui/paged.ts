import { useEffect, useState } from 'preact/hooks';
import { type Loaded, useLoad } from './load';

/** One page of a list the API gives a page at a time. */
export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

export interface Paged<T, D> {
  /** The first page as loaded (for `<Loading>`). */
  first: Loaded<D>;
  /** Every row loaded so far. */
  rows: T[];
  /** Whether there is a page after the rows. */
  hasMore: boolean;
  /** Loads the next page after the rows. */
  more(): Promise<void>;
  /** Why the last `more()` failed. */
  moreError: Error | null;
}

/**
 * A "load more" list: the first page when `deps` change (again on `first.reload()`), and each next
 * page appended to the rows on `more()`. `page(cursor)` fetches one page; `rowsOf` takes its rows
 * and next cursor.
 */
export function usePaged<T, D>(
  page: (cursor?: string) => Promise<D>,
  rowsOf: (data: D) => Page<T>,
  deps: unknown[],
): Paged<T, D> {
  const [rows, setRows] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<Error | null>(null);
  const first = useLoad(() => page(), deps);
  useEffect(() => {
    if (!first.data) return;
    const firstPage = rowsOf(first.data);
    setRows(firstPage.rows);
    setCursor(firstPage.nextCursor);
  }, [first.data]);
  const more = async () => {
    try {
      const next = rowsOf(await page(cursor ?? undefined));
      setRows((previous) => [...previous, ...next.rows]);
      setCursor(next.nextCursor);
    } catch (error) {
      setMoreError(error as Error);
    }
  };
  return { first, rows, hasMore: Boolean(cursor), more, moreError };
}

export interface LoadMore<T> {
  /** Every row loaded so far (a page can take some away, as when one is decided). */
  rows: T[];
  setRows(update: (previous: T[]) => T[]): void;
  /** Whether a page is being loaded: the first, or a next. */
  loading: boolean;
  /** Why the last page failed. */
  error: Error | null;
  /** Whether there is a page after the rows. */
  hasMore: boolean;
  /** Loads the next page after the rows. */
  more(): void;
}

/**
 * A "load more" list that shows its rows while it loads: the first page when `deps` change (an
 * answer that arrives after a newer request started is dropped), each next page appended on
 * `more()`. `page(cursor)` fetches one page: its rows and next cursor.
 */
export function useLoadMore<T>(page: (cursor?: string) => Promise<Page<T>>, deps: unknown[]): LoadMore<T> {
  const [rows, setRows] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  const load = async (after: string | null, current: { stale: boolean }) => {
    setLoading(true);
    try {
      const next = await page(after ?? undefined);
      if (current.stale) return;
      setRows((previous) => (after ? [...previous, ...next.rows] : next.rows));
      setCursor(next.nextCursor);
      setError(null);
    } catch (failure) {
      if (!current.stale) setError(failure as Error);
    } finally {
      if (!current.stale) setLoading(false);
    }
  };
  useEffect(() => {
    const current = { stale: false };
    void load(null, current);
    return () => {
      current.stale = true;
    };
  }, deps);
  return {
    rows,
    setRows,
    loading,
    error,
    hasMore: Boolean(cursor),
    more: () => void load(cursor, { stale: false }),
  };
}
