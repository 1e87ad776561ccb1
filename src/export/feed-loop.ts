// The one resumable-feed loop. `redemptions export` (feed and corrections), `events sync`,
// `events tail` and `sync` (the database copy) all read a cursor feed the same way (spec: Feeds,
// Complete-copy procedure):
//   from the saved position, read a page (the next one is read ahead while this one is handled),
//   drop the ids the repeated last page already delivered, hand the rest to `handle`, which makes
//   them durable and then saves the position it is given; stop after the page whose nextCursor is
//   null. A position is never saved before the rows it covers: that is `handle`'s contract.
import { type FeedPage, feedPages } from "../api/paging.js";

export interface FeedPosition {
  /** The cursor to read from next (null: from the start). */
  cursor: string | null;
  /** Ids already handled from the page that `cursor` starts at (the last page repeats). */
  skipIds: string[];
}

export const START: FeedPosition = Object.freeze({ cursor: null, skipIds: [] }) as FeedPosition;

export interface FeedStep<T> {
  /** The page's items not handled before (the repeated last page's handled ids removed). */
  fresh: T[];
  /** How many of the page's items were skipped as already handled. */
  repeated: number;
  /** The position that covers this page once `fresh` is durable. */
  next: FeedPosition;
  /** True for the page whose nextCursor is null (the end of what is available now). */
  last: boolean;
  /** 1-based page number within this run. */
  pageNo: number;
}

export interface FeedLoopOptions<T> {
  read(after: string | undefined): Promise<FeedPage<T>>;
  idOf(item: T): string;
  from: FeedPosition;
  /** Makes `step.fresh` durable, then saves `step.next` (in that order). Awaited before the next page. */
  handle(step: FeedStep<T>): Promise<void>;
  /** Checked before each page is handled; when aborted, `interrupted()` is thrown. */
  signal?: AbortSignal | undefined;
  interrupted?: (() => Error) | undefined;
  /** Read the next page while this one is handled (reads have no side effects). Default true. */
  readAhead?: boolean | undefined;
}

export interface FeedLoopResult {
  position: FeedPosition;
  pages: number;
  fresh: number;
  repeated: number;
}

/** The position after a page: the next cursor, or (last page) the same cursor with its ids skipped. */
export function advance(
  pos: FeedPosition,
  pageIds: readonly string[],
  nextCursor: string | null,
): FeedPosition {
  if (nextCursor !== null && nextCursor !== pos.cursor) return { cursor: nextCursor, skipIds: [] };
  const seen = new Set(pos.skipIds);
  const skipIds = [...pos.skipIds];
  for (const id of pageIds) {
    if (!seen.has(id)) {
      seen.add(id);
      skipIds.push(id);
    }
  }
  return { cursor: pos.cursor, skipIds };
}

export async function runFeed<T>(o: FeedLoopOptions<T>): Promise<FeedLoopResult> {
  let pos: FeedPosition = { cursor: o.from.cursor, skipIds: [...o.from.skipIds] };
  const result: FeedLoopResult = { position: pos, pages: 0, fresh: 0, repeated: 0 };
  const pages = feedPages(o.read, pos.cursor ?? undefined, { readAhead: o.readAhead ?? true });
  for await (const page of pages) {
    if (o.signal?.aborted) throw o.interrupted?.() ?? new Error("Interrupted.");
    const skip = new Set(pos.skipIds);
    const ids = page.items.map((it) => o.idOf(it));
    const fresh: T[] = [];
    let repeated = 0;
    page.items.forEach((it, i) => {
      if (skip.has(ids[i]!)) repeated++;
      else fresh.push(it);
    });
    const last = page.nextCursor === null || (page.items.length === 0 && page.nextCursor === page.after);
    const next = advance(pos, ids, page.nextCursor);
    result.pages++;
    await o.handle({ fresh, repeated, next, last, pageNo: result.pages });
    pos = next;
    result.position = pos;
    result.fresh += fresh.length;
    result.repeated += repeated;
  }
  return result;
}
