// Iterators over the spec's two list shapes: paged wrappers and cursor feeds.
import { ProtocolError } from "../errors.js";

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  totalCount: number;
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
 */
export async function* feedPages<T>(
  fetchPage: (after: string | undefined) => Promise<FeedPage<T>>,
  after?: string,
): AsyncGenerator<FeedPage<T> & { after: string | undefined }> {
  let cursor = after;
  for (;;) {
    const p = await fetchPage(cursor);
    yield { ...p, after: cursor };
    if (p.nextCursor === null || (p.items.length === 0 && p.nextCursor === cursor)) return;
    cursor = p.nextCursor;
  }
}
