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
