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
  /** The page's items not handled before (the repeated last page's handled ids removed); may be the page's own array: read only. */
  fresh: T[];
  /** How many of the page's items were skipped as already handled. */
  repeated: number;
  /** The position that covers this page once `fresh` is durable. */
  next: FeedPosition;
  /** True for the page whose nextCursor is null (the end of what is available now). */
  last: boolean;
  /** 1-based page number within this run. */
  pageNo: number;
  /** The page `read` returned (a shallow copy: its fields, whatever else `read` put on it included, and `after`). */
  page: FeedPage<T>;
  /**
   * While `handle` runs: the step `ahead` pages after this one (default 1: the next), when it and
   * the pages before it have already been read ahead (up to the read-ahead depth, above 1), else
   * undefined. `handle` may prepare its work for it (render it, record the intent of its write with
   * this step's save, even start it); the loop hands that same object to `handle` in its turn,
   * unless the run stops first.
   */
  peek?: ((ahead?: number) => FeedStep<T> | undefined) | undefined;
}

/**
 * Reads the page at `after`. `onCursor`, when given (read-ahead above 1), may be told the page's
 * next cursor as soon as it is known, before the page is parsed and checked: the next read starts
 * then. It is a guess: when the page's nextCursor turns out different, the reads started from the
 * guess are dropped and the feed is read on from the page's own cursor.
 */
export type FeedRead<T> = (
  after: string | undefined,
  onCursor?: (cursor: string | null) => void,
) => Promise<FeedPage<T>>;

export interface FeedLoopOptions<T> {
  read: FeedRead<T>;
  idOf(item: T): string;
  from: FeedPosition;
  /** Makes `step.fresh` durable, then saves `step.next` (in that order). Awaited before the next page. */
  handle(step: FeedStep<T>): Promise<void>;
  /** Checked before each page is handled; when aborted, `interrupted()` is thrown. */
  signal?: AbortSignal | undefined;
  interrupted?: (() => Error) | undefined;
  /**
   * Pages read ahead while one is handled (reads have no side effects): true (the default) or 1
   * reads the next page; a number N > 1 keeps up to N pages requested or waiting beyond the one
   * being handled, each read starting as soon as the page before it arrived (the cursor chain), so
   * the service is never idle while the handler is busy; false or 0 reads one page at a time.
   */
  readAhead?: boolean | number | undefined;
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

type PageAt<T> = FeedPage<T> & { after: string | undefined };

/** Whether a page ends the walk (as feedPages decides: nextCursor null, or an empty page that hands back its own cursor). */
const endsWalk = <T>(p: FeedPage<T>, after: string | undefined) =>
  p.nextCursor === null || (p.items.length === 0 && p.nextCursor === after);

/** Pages in feed order, each with the cursor that produced it. */
interface PageReader<T> {
  /** The next page (a failed read throws here), or undefined after the last one. */
  next(): Promise<PageAt<T> | undefined>;
  /** The page next() returns `i` calls from now (0: the next one), when it and those before it have arrived (the same object); else undefined. */
  peek(i: number): PageAt<T> | undefined;
  /** Drops what is still being read (failures ignored). */
  stop(): void;
}

/**
 * A read-ahead of `depth` pages: up to `depth` pages beyond the one the caller holds are requested or
 * waiting. A read starts as soon as the cursor of the page before it is known (told early by `read`,
 * or the page arrived) and fewer than `depth` pages wait. A failed read is thrown where its page is
 * due, and nothing after it is requested.
 */
function pipelinedReader<T>(read: FeedRead<T>, from: string | undefined, depth: number): PageReader<T> {
  interface Slot {
    after: string | undefined;
    page: Promise<PageAt<T>>;
    /** Set when the read succeeded. */
    done?: PageAt<T> | undefined;
    /** The next cursor told early, which the read after this one was (or will be) started from. */
    guess?: string | undefined;
    /** Dropped: started from a guess that proved wrong, or after a failed read. */
    dropped?: boolean;
  }
  const queue: Slot[] = [];
  let stopped = false;
  let ended = false;
  /** The cursor of the next read: undefined while unknown (the read before it is running), null after the end or a failure. */
  let nextAfter: { after: string | undefined } | null | undefined = { after: from };
  /** Drops the reads after `slot` (their pages and failures are ignored); the next read is from `after`. */
  const restartAfter = (slot: Slot, after: { after: string | undefined } | null) => {
    const at = queue.indexOf(slot);
    if (at >= 0) for (const s of queue.splice(at + 1)) s.dropped = true;
    nextAfter = after;
  };
  /** A next cursor told before the page was parsed: read on from it now. */
  const guessed = (slot: Slot, cursor: string | null) => {
    if (stopped || slot.dropped || slot.done || slot.guess !== undefined) return;
    // null, or the page's own cursor, may end the walk: the parsed page decides.
    if (cursor === null || cursor === slot.after || queue.at(-1) !== slot || nextAfter !== undefined) return;
    slot.guess = cursor;
    nextAfter = { after: cursor };
    pump();
  };
  const arrived = (slot: Slot, p: PageAt<T>) => {
    if (slot.dropped) return;
    slot.done = p;
    const next = endsWalk(p, slot.after) ? null : { after: p.nextCursor as string };
    if (slot.guess === undefined) nextAfter = next;
    else if (slot.guess !== next?.after) restartAfter(slot, next);
    pump();
  };
  const pump = () => {
    while (!stopped && nextAfter && queue.length < depth) {
      const after = nextAfter.after;
      nextAfter = undefined;
      const slot = { after } as Slot;
      queue.push(slot);
      let page: Promise<FeedPage<T>>;
      try {
        page = read(after, (cursor) => guessed(slot, cursor));
      } catch (err) {
        page = Promise.reject(err);
      }
      slot.page = page.then((p) => ({ ...p, after }));
      slot.page.then(
        (p) => arrived(slot, p),
        // No cursor to go on with: the failure is thrown where its page is due.
        () => {
          if (!slot.dropped) restartAfter(slot, null);
        },
      );
    }
  };
  pump();
  return {
    async next() {
      const slot = queue[0];
      if (ended || !slot) return undefined;
      const p = slot.done ?? (await slot.page);
      queue.shift();
      if (endsWalk(p, slot.after)) ended = true;
      else pump();
      return p;
    },
    peek(i) {
      if (ended) return undefined;
      for (let k = 0; k <= i; k++) {
        const p = queue[k]?.done;
        if (!p) return undefined;
        if (k === i) return p;
        if (endsWalk(p, queue[k]!.after)) return undefined;
      }
      return undefined;
    },
    stop() {
      stopped = true;
    },
  };
}

export async function runFeed<T>(o: FeedLoopOptions<T>): Promise<FeedLoopResult> {
  let pos: FeedPosition = { cursor: o.from.cursor, skipIds: [...o.from.skipIds] };
  const result: FeedLoopResult = { position: pos, pages: 0, fresh: 0, repeated: 0 };
  const depth = o.readAhead === undefined || o.readAhead === true ? 1 : Math.max(0, Math.floor(+o.readAhead));
  const from = pos.cursor ?? undefined;
  const stepOf = (page: PageAt<T>, at: FeedPosition, pageNo: number): FeedStep<T> => {
    const last = endsWalk(page, page.after);
    // Nothing to skip and the cursor moves on (every page but a resumed first one and the last):
    // the page's items as they are, and no ids (a page waiting in the read-ahead holds no copies).
    if (at.skipIds.length === 0 && page.nextCursor !== null && page.nextCursor !== at.cursor)
      return {
        fresh: page.items,
        repeated: 0,
        next: { cursor: page.nextCursor, skipIds: [] },
        last,
        pageNo,
        page,
      };
    const skip = new Set(at.skipIds);
    const ids = page.items.map((it) => o.idOf(it));
    const fresh: T[] = [];
    let repeated = 0;
    page.items.forEach((it, i) => {
      if (skip.has(ids[i]!)) repeated++;
      else fresh.push(it);
    });
    return { fresh, repeated, next: advance(at, ids, page.nextCursor), last, pageNo, page };
  };
  const account = (step: FeedStep<T>) => {
    pos = step.next;
    result.position = pos;
    result.fresh += step.fresh.length;
    result.repeated += step.repeated;
  };
  if (depth <= 1) {
    // One page at a time (or the next one read while this one is handled): no peeking, so the
    // pages go straight through. (Driven through the peeking reader below instead, a sync of a
    // million redemptions peaked at about 230 MB against 175 MB this way.)
    for await (const page of feedPages(o.read, from, { readAhead: depth === 1 })) {
      if (o.signal?.aborted) throw o.interrupted?.() ?? new Error("Interrupted.");
      const step = stepOf(page, pos, result.pages + 1);
      result.pages++;
      await o.handle(step);
      account(step);
    }
    return result;
  }
  const reader = pipelinedReader(o.read, from, depth);
  /** The steps peeks computed, in order from the next one: each handed to `handle` as it is when its page comes up. */
  let ahead: { page: PageAt<T>; step: FeedStep<T> }[] = [];
  try {
    for (;;) {
      const page = await reader.next();
      if (!page) break;
      if (o.signal?.aborted) throw o.interrupted?.() ?? new Error("Interrupted.");
      const step = ahead[0]?.page === page ? ahead[0].step : stepOf(page, pos, result.pages + 1);
      ahead = ahead[0]?.page === page ? ahead.slice(1) : [];
      if (!step.last)
        step.peek = (n = 1) => {
          // Steps are computed in order, each from the position after the one before.
          while (ahead.length < n) {
            const before = ahead.at(-1)?.step ?? step;
            if (before.last) return undefined;
            const p = reader.peek(ahead.length);
            if (!p) return undefined;
            ahead.push({ page: p, step: stepOf(p, before.next, before.pageNo + 1) });
          }
          return n >= 1 ? ahead[n - 1]!.step : undefined;
        };
      result.pages++;
      await o.handle(step);
      step.peek = undefined;
      account(step);
    }
  } finally {
    reader.stop();
  }
  return result;
}
