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

/**
 * One batch of a list as a command prints it: the items, whether more follow them in the list
 * (known from the page's totalCount or the feed's cursor), and the list's total where it is known.
 */
export interface Batch<T> {
  items: readonly T[];
  more: boolean;
  total?: number | undefined;
}

/** What a capped walk printed: how many items, whether more exist past them, the total if known. */
export interface CapResult {
  shown: number;
  cut: boolean;
  total?: number | undefined;
}

/** A page as a batch: more follow when the page is not empty and does not reach totalCount. */
function pageBatch<T>(p: Page<T>): Batch<T> {
  const more = p.items.length > 0 && p.pageSize > 0 && (p.page + 1) * p.pageSize < p.totalCount;
  return { items: p.items, more, total: p.totalCount };
}

/**
 * The pages of a list as batches: only `startPage` (a list's default), or every page from it
 * (`walk`: --all or --limit; a capped walk stops pulling, so no page past the cap is requested).
 */
export async function* pageBatches<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  startPage: number,
  walk: boolean,
): AsyncGenerator<Batch<T>> {
  if (!walk) {
    yield pageBatch(await fetchPage(startPage));
    return;
  }
  for await (const p of allPages(fetchPage, startPage)) yield pageBatch(p);
}

/**
 * Hands the batches' items to `write` until `limit` items went out (the last batch trimmed) or the
 * batches end. Once the cap is reached no further batch is pulled, so a lazy page walk requests
 * no page past it. `cut`: items past those written exist (more in the batch, or more after it,
which is also the case when the batches stop early: a list's one default page).
 */
export async function takeCapped<T>(
  batches: AsyncIterable<Batch<T>>,
  limit: number | undefined,
  write: (items: readonly T[]) => void,
): Promise<CapResult> {
  let shown = 0;
  let total: number | undefined;
  let more = false;
  for await (const b of batches) {
    total = b.total;
    more = b.more;
    const room = limit === undefined ? Number.POSITIVE_INFINITY : limit - shown;
    const items = b.items.length > room ? b.items.slice(0, room) : b.items;
    write(items);
    shown += items.length;
    if (!b.more || shown === limit) return { shown, cut: b.more || items.length < b.items.length, total };
  }
  return { shown, cut: more, total };
}
