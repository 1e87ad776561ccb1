// Iterators over the spec's two list shapes: paged wrappers and cursor feeds.
import { ProtocolError } from "../errors.js";

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  totalCount: number;
  /** The service's time when it answered (its Date header), where the endpoint function reports it. */
  serviceDate?: Date | undefined;
}

/**
 * Walks every page from `startPage` until totalCount is covered or a page comes back empty. The
 * page size is the one the service answered with (it clamps large requests to 200).
 */
export async function* allPages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  startPage = 0,
): AsyncGenerator<Page<T>> {
  for (let page = startPage; ; page++) {
    const p = await fetchPage(page);
    // A service that ignores `page` would make this loop forever; say so instead.
    if (p.page !== page) {
      throw new ProtocolError(`Asked for page ${page} of a list, the service answered page ${p.page}.`);
    }
    yield p;
    if (p.items.length === 0 || p.pageSize <= 0 || (p.page + 1) * p.pageSize >= p.totalCount) return;
  }
}

export async function* allItems<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  startPage = 0,
): AsyncGenerator<T> {
  for await (const p of allPages(fetchPage, startPage)) yield* p.items;
}

export interface FeedPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Walks a cursor feed from `after` until nextCursor is null. Yields each page with the cursor that
 * produced it, so callers can save the returned cursor only after handling the page. An empty page
 * that hands back the cursor it was read with also ends the walk (nothing more can come of it).
 * With `readAhead`, the next page is requested before the current one is yielded (reads have no
 * side effects), so reading overlaps the caller's work; a read-ahead that is never consumed is
 * dropped and its failure ignored.
 */
export async function* feedPages<T>(
  fetchPage: (after: string | undefined) => Promise<FeedPage<T>>,
  after?: string,
  o: { readAhead?: boolean } = {},
): AsyncGenerator<FeedPage<T> & { after: string | undefined }> {
  let cursor = after;
  let pending = fetchPage(cursor);
  for (;;) {
    const p = await pending;
    const end = p.nextCursor === null || (p.items.length === 0 && p.nextCursor === cursor);
    const next = end ? undefined : (p.nextCursor as string);
    if (!end && o.readAhead) {
      pending = fetchPage(next);
      pending.catch(() => {}); // handled where it is awaited
    }
    yield { ...p, after: cursor };
    if (end) return;
    cursor = next;
    if (!o.readAhead) pending = fetchPage(cursor);
  }
}
