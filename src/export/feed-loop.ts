// The one resumable-feed loop. `redemptions export` (feed and corrections), `events sync`,
// `events tail` and `sync` (the database copy) all read a cursor feed the same way (spec: Feeds,
// Complete-copy procedure):
//   from the saved position, read a page (the next one is read ahead while this one is handled),
//   drop the ids the repeated last page already delivered, hand the rest to `handle`, which makes
//   them durable and then saves the position it is given; stop after the page whose nextCursor is
//   null. A position is never saved before the rows it covers: that is `handle`'s contract.
// It also checks the feed's contract instead of assuming it (FeedContract below): a page whose
// nextCursor was already used in this run (the page's own cursor, or a cycle), the feed's order
// (recordedAt, occurredAt) going backwards from one page to the next, or pages that never bring
// anything new stop the run before that page is handled (FeedContractError, exit 4); an id the
// service sends again within the run is skipped and counted (`duplicates`); and a run stops
// between pages once its deadline has passed (PendingError, exit 8), so a run never holds its lock
// forever.
import { type FeedPage, feedPages } from "../api/paging.js";
import type { Clock } from "../clock.js";
import { FeedContractError, PendingError, UsageError } from "../errors.js";
import { parseDurationMs } from "../spec/duration.js";

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
  /** How many of the page's items were skipped as already handled (`duplicates` included). */
  repeated: number;
  /**
   * Of `repeated`, the ids the service should not have sent again: delivered by an earlier page of
   * this run (or by the resumed last page of the previous run, on another page), or twice on this page.
   */
  duplicates: number;
  /** When items were skipped: the index in `page.items` of each of `fresh` (so a caller can find their rows). */
  taken?: number[] | undefined;
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
  /** Set when the page breaks the feed's contract: the loop throws it instead of handling the page (peek never shows such a step). */
  violation?: FeedContractError | undefined;
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
  /**
   * The page's ids as UUIDs' bits (uuidKeys), when `read` took them off the page: then the loop asks
   * `idOf` only on a page whose ids it keeps or skips (the resumed page, a page that ends the walk),
   * so the other pages need keep no id strings while they wait in the read-ahead.
   */
  keysOf?: ((page: FeedPage<T>) => Uint32Array | undefined) | undefined;
  /** The feed's order (its items' recordedAt or occurredAt), checked never to go backwards from page to page. */
  order?: FeedOrder<T> | undefined;
  /** What the feed is called in errors ("the redemption feed"); default "the feed". */
  name?: string | undefined;
  /** When reading stops, checked before each page is handled (feedDeadline). */
  deadline?: FeedDeadline | undefined;
}

export interface FeedLoopResult {
  position: FeedPosition;
  pages: number;
  fresh: number;
  repeated: number;
  duplicates: number;
}

/** A feed's order: the field (named in errors) and the first and last item's value of it on a page. */
export interface FeedOrder<T> {
  field: string;
  /** [first, last] of the page's items, or undefined for an empty page (or when not known). */
  span(page: FeedPage<T>): readonly [string, string] | undefined;
}

/** The order of a feed whose items carry the field themselves. */
export function orderBy<T>(field: string, of: (item: T) => string): FeedOrder<T> {
  return {
    field,
    span: (p) => (p.items.length ? [of(p.items[0]!), of(p.items[p.items.length - 1]!)] : undefined),
  };
}

/** The redemption feed is ordered by recordedAt, the event log by occurredAt (spec: Redemptions, Event log). */
export const BY_RECORDED_AT = orderBy<{ recordedAt: string }>("recordedAt", (r) => r.recordedAt);
export const BY_OCCURRED_AT = orderBy<{ occurredAt: string }>("occurredAt", (e) => e.occurredAt);

/** The overall bound of a run's feed reads: a time on the injected clock, and how it was set (for the message). */
export interface FeedDeadline {
  now(): Date;
  /** Milliseconds since the epoch, on `now`'s clock. */
  at: number;
  /** The bound as set, for the message: "6h (the default of PARTNER_FEED_MAX_DURATION)", "90m (PARTNER_FEED_MAX_DURATION)". */
  label: string;
}

const FEED_MAX_DURATION_ENV = "PARTNER_FEED_MAX_DURATION";
const FEED_MAX_DURATION_DEFAULT = "6h";

/**
 * The deadline of a run that starts now: PARTNER_FEED_MAX_DURATION (a duration such as "6h", "90m";
 * default 6h) on the Context's clock. "0" or "off" sets none.
 */
export function feedDeadline(ctx: {
  clock: Pick<Clock, "now">;
  env: NodeJS.ProcessEnv;
}): FeedDeadline | undefined {
  const raw = ctx.env[FEED_MAX_DURATION_ENV]?.trim() || undefined;
  if (raw === "0" || raw === "off") return undefined;
  const ms = parseDurationMs(raw ?? FEED_MAX_DURATION_DEFAULT, { bareMilliseconds: false });
  if (ms === undefined || ms <= 0)
    throw new UsageError(
      `${FEED_MAX_DURATION_ENV}="${raw}" is not a duration like 90m, 6h or 1d.`,
      `Set it to the longest a feed read may take (default ${FEED_MAX_DURATION_DEFAULT}), or to "off".`,
    );
  const now = () => ctx.clock.now();
  const label = raw
    ? `${raw} (${FEED_MAX_DURATION_ENV})`
    : `${FEED_MAX_DURATION_DEFAULT} (the default of ${FEED_MAX_DURATION_ENV})`;
  return { now, at: now().getTime() + ms, label };
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

/** One read of the read-ahead: the page requested from `after`. */
interface ReadSlot<T> {
  after: string | undefined;
  page: Promise<PageAt<T>>;
  /** Set when the read succeeded. */
  done?: PageAt<T> | undefined;
  /** The next cursor told early, which the read after this one was (or will be) started from. */
  guess?: string | undefined;
  /** Dropped: started from a guess that proved wrong, or after a failed read. */
  dropped?: boolean;
}

/**
 * A read-ahead of `depth` pages: up to `depth` pages beyond the one the caller holds are requested or
 * waiting. A read starts as soon as the cursor of the page before it is known (told early by `read`,
 * or the page arrived) and fewer than `depth` pages wait. A failed read is thrown where its page is
 * due, and nothing after it is requested.
 */
function pipelinedReader<T>(read: FeedRead<T>, from: string | undefined, depth: number): PageReader<T> {
  type Slot = ReadSlot<T>;
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

/** A run remembers at least this many of the latest ids (up to twice as many) to skip one the service sends again. */
const RECENT_IDS = 10_000;
/** Cursors a run remembers; a longer cycle comes back to pages whose ids and order give it away. */
const RECENT_CURSORS = 10_000;
/** Pages in a row that bring nothing new (and do not end the walk) before the run stops. */
export const NO_PROGRESS_PAGES = 100;

/** Hex digit values of lower-case hex (-1: not one). */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c++) HEX["0123456789abcdef".charCodeAt(c)] = c;

/** A lower-case UUID's 128 bits into `out` (4 words from `w`); false for any other id. */
function uuidWords(id: string, out: Uint32Array, w = 0): boolean {
  if (id.length !== 36) return false;
  let j = w;
  let v = 0;
  let k = 0;
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
      continue;
    }
    const h = c < 128 ? HEX[c]! : -1;
    if (h < 0) return false;
    v = (v << 4) | h;
    if (++k === 8) {
      out[j++] = v >>> 0;
      v = 0;
      k = 0;
    }
  }
  return true;
}

/** The ids' UUID bits, 4 words an id, or undefined when one of them is not a lower-case UUID. */
export function uuidKeys(n: number, idAt: (i: number) => string): Uint32Array | undefined {
  const keys = new Uint32Array(4 * n);
  for (let i = 0; i < n; i++) if (!uuidWords(idAt(i), keys, 4 * i)) return undefined;
  return keys;
}

/**
 * A set of 128-bit keys in typed arrays (open addressing): no object per id, so remembering ids
 * makes no garbage (id strings kept in a Set live long enough to be promoted, and their old-space
 * garbage showed as +18 MB peak RSS in the export of 300,000 rows).
 */
class KeyTable {
  private readonly mask: number;
  private readonly words: Uint32Array;
  private readonly used: Uint8Array;
  size = 0;
  constructor(bits: number) {
    this.mask = (1 << bits) - 1;
    this.words = new Uint32Array(4 << bits);
    this.used = new Uint8Array(1 << bits);
  }
  /** Whether the key at k[at..at+3] is held; with `insert`, adds it when not. */
  probe(k: Uint32Array, at: number, insert: boolean): boolean {
    const { mask, words, used } = this;
    const a = k[at]!;
    const b = k[at + 1]!;
    const c = k[at + 2]!;
    const d = k[at + 3]!;
    let i = (a ^ Math.imul(b, 0x9e3779b1) ^ c ^ d) & mask;
    for (; used[i]; i = (i + 1) & mask) {
      const o = i * 4;
      if (words[o] === a && words[o + 1] === b && words[o + 2] === c && words[o + 3] === d) return true;
    }
    if (insert) {
      const o = i * 4;
      words[o] = a;
      words[o + 1] = b;
      words[o + 2] = c;
      words[o + 3] = d;
      used[i] = 1;
      this.size++;
    }
    return false;
  }
  clear(): void {
    this.used.fill(0);
    this.size = 0;
  }
}

/**
 * The latest ids: two generations of RECENT_IDS, the older dropped whole (no per-id eviction). UUIDs
 * (the spec's ids) are kept as their 128 bits; any other id as its string.
 */
class RecentIds {
  private cur = new KeyTable(15);
  private old = new KeyTable(15);
  private curOther = new Set<string>();
  private oldOther = new Set<string>();
  private readonly key = new Uint32Array(4);
  has(id: string): boolean {
    if (uuidWords(id, this.key))
      return this.cur.probe(this.key, 0, false) || this.old.probe(this.key, 0, false);
    return this.curOther.has(id) || this.oldOther.has(id);
  }
  /** Whether the id at `i` of uuidKeys is held. */
  hasKey(keys: Uint32Array, i: number): boolean {
    return this.cur.probe(keys, 4 * i, false) || this.old.probe(keys, 4 * i, false);
  }
  addKey(keys: Uint32Array, i: number): void {
    this.cur.probe(keys, 4 * i, true);
    this.rotate();
  }
  /** Adds an id not held (has(id) was false just before). */
  add(id: string): void {
    if (uuidWords(id, this.key)) this.cur.probe(this.key, 0, true);
    else this.curOther.add(id);
    this.rotate();
  }
  private rotate(): void {
    if (this.cur.size + this.curOther.size >= RECENT_IDS) {
      [this.old, this.cur] = [this.cur, this.old];
      this.cur.clear();
      [this.oldOther, this.curOther] = [this.curOther, new Set()];
    }
  }
}

const at = (after: string | undefined) =>
  after === undefined ? "read from the start" : `read with cursor "${after}"`;

/** What one run has seen of a feed: the cursors it used, its order so far, its latest ids. */
class FeedContract<T> {
  /** Cursor → the page of this run read with it (the latest RECENT_CURSORS). */
  private readonly cursors = new Map<string, number>();
  private last: { time: number; text: string; pageNo: number } | undefined;
  private idle = 0;
  readonly recent = new RecentIds();

  constructor(
    private readonly name: string,
    private readonly order: FeedOrder<T> | undefined,
  ) {}

  private breach(page: PageAt<T>, pageNo: number, what: string): FeedContractError {
    return new FeedContractError(
      `The service broke the contract of ${this.name} at page ${pageNo} of this run (${at(page.after)}): ${what}. Nothing of page ${pageNo} was handled; the pages before it were.`,
      "The saved position is the last good page: once the service is fixed, the next run continues from there, nothing lost or doubled.",
    );
  }

  /** The page's cursors and order checked (and recorded), before its items are taken. */
  check(page: PageAt<T>, pageNo: number, startsRepeated: boolean): FeedContractError | undefined {
    const { after, nextCursor } = page;
    if (after !== undefined) {
      this.cursors.set(after, pageNo);
      if (this.cursors.size > RECENT_CURSORS) this.cursors.delete(this.cursors.keys().next().value!);
    }
    // An empty page that hands back its own cursor ends the walk (nothing more can come of it).
    if (nextCursor !== null && !(page.items.length === 0 && nextCursor === after)) {
      const usedBy = this.cursors.get(nextCursor);
      if (usedBy === pageNo)
        return this.breach(
          page,
          pageNo,
          "its nextCursor is the cursor that fetched it, so the feed would repeat that page forever",
        );
      if (usedBy !== undefined)
        return this.breach(
          page,
          pageNo,
          `its nextCursor "${nextCursor}" is the cursor page ${usedBy} of this run was read with: the cursors go round in a cycle`,
        );
    }
    return this.checkOrder(page, pageNo, startsRepeated);
  }

  /**
   * The page must not start before the page before it ended (equal times are fine). A page that
   * starts with ids already handled (repeated by the service, skipped) starts with old items: then
   * its last item must not be before that end.
   */
  private checkOrder(
    page: PageAt<T>,
    pageNo: number,
    startsRepeated: boolean,
  ): FeedContractError | undefined {
    const span = this.order?.span(page);
    if (!span) return undefined;
    const field = this.order!.field;
    const [first, lastText] = span;
    const [which, text] = startsRepeated ? ["last", lastText] : ["first", first];
    if (this.last && Date.parse(text) < this.last.time)
      return this.breach(
        page,
        pageNo,
        `${field} goes backwards: its ${which} item's is ${text}, before ${this.last.text}, the last of page ${this.last.pageNo} (the feed is ordered by ${field})`,
      );
    const time = Date.parse(lastText);
    if (!Number.isNaN(time)) this.last = { time, text: lastText, pageNo };
    return undefined;
  }

  /** After the page's ids: pages that bring nothing new must end the walk before long. */
  progress(page: PageAt<T>, pageNo: number, fresh: number, last: boolean): FeedContractError | undefined {
    this.idle = fresh > 0 || last ? 0 : this.idle + 1;
    if (this.idle < NO_PROGRESS_PAGES) return undefined;
    return this.breach(
      page,
      pageNo,
      `${NO_PROGRESS_PAGES} pages in a row up to this one brought nothing new and the feed does not end`,
    );
  }
}

/** Throws when the deadline has passed (between pages: everything handled so far is saved). */
function checkDeadline(d: FeedDeadline | undefined, name: string, pages: number): void {
  if (!d || d.now().getTime() <= d.at) return;
  throw new PendingError(
    `Stopped reading ${name} after ${pages} page${pages === 1 ? "" : "s"}: the run reached its bound of ${d.label}. Everything handled so far is saved.`,
    `Run again to continue from there; set ${FEED_MAX_DURATION_ENV} (e.g. 12h) to allow a longer run.`,
  );
}

/** Each page's step, computed in feed order: the skipped ids, the contract checks, the next position. */
function stepper<T>(o: FeedLoopOptions<T>) {
  const contract = new FeedContract<T>(o.name ?? "the feed", o.order);
  const recent = contract.recent;
  // The ids the previous run handled from the page this run starts at may come again on later pages.
  for (const id of o.from.skipIds) if (!recent.has(id)) recent.add(id);
  return (page: PageAt<T>, pos: FeedPosition, pageNo: number): FeedStep<T> => {
    const last = endsWalk(page, page.after);
    const base = { last, pageNo, page };
    const { items, nextCursor } = page;
    const skip = pos.skipIds.length ? new Set(pos.skipIds) : undefined;
    const keys = o.keysOf?.(page);
    const isSkipped = (i: number) => skip?.has(o.idOf(items[i]!)) === true;
    const seen = keys ? (i: number) => recent.hasKey(keys, i) : (i: number) => recent.has(o.idOf(items[i]!));
    const remember = keys
      ? (i: number) => recent.addKey(keys, i)
      : (i: number) => recent.add(o.idOf(items[i]!));
    const startsRepeated = items.length > 0 && (isSkipped(0) || seen(0));
    const violation = contract.check(page, pageNo, startsRepeated);
    if (violation) return { ...base, fresh: [], repeated: 0, duplicates: 0, next: pos, violation };
    // The page's own array unless something is skipped (then a copy from the first skipped item).
    let fresh: T[] | undefined;
    let taken: number[] | undefined;
    let repeated = 0;
    let duplicates = 0;
    for (let i = 0; i < items.length; i++) {
      if (skip && isSkipped(i)) repeated++;
      else if (seen(i)) duplicates++;
      else {
        remember(i);
        fresh?.push(items[i]!);
        taken?.push(i);
        continue;
      }
      fresh ??= items.slice(0, i);
      taken ??= Array.from({ length: i }, (_, k) => k);
    }
    const next =
      nextCursor !== null && nextCursor !== pos.cursor
        ? { cursor: nextCursor, skipIds: [] }
        : advance(pos, items.map(o.idOf), nextCursor);
    const stuck = contract.progress(page, pageNo, (fresh ?? items).length, last);
    if (stuck) return { ...base, fresh: [], repeated: 0, duplicates: 0, next: pos, violation: stuck };
    return { ...base, fresh: fresh ?? items, taken, repeated: repeated + duplicates, duplicates, next };
  };
}

export async function runFeed<T>(o: FeedLoopOptions<T>): Promise<FeedLoopResult> {
  let pos: FeedPosition = { cursor: o.from.cursor, skipIds: [...o.from.skipIds] };
  const result: FeedLoopResult = { position: pos, pages: 0, fresh: 0, repeated: 0, duplicates: 0 };
  const depth = o.readAhead === undefined || o.readAhead === true ? 1 : Math.max(0, Math.floor(+o.readAhead));
  const from = pos.cursor ?? undefined;
  const stepOf = stepper(o);
  const name = o.name ?? "the feed";
  const account = (step: FeedStep<T>) => {
    pos = step.next;
    result.position = pos;
    result.fresh += step.fresh.length;
    result.repeated += step.repeated;
    result.duplicates += step.duplicates;
  };
  /** Before a page is handled: Ctrl-C, the deadline, the page's breach of the contract. */
  const due = (step: FeedStep<T>) => {
    if (o.signal?.aborted) throw o.interrupted?.() ?? new Error("Interrupted.");
    checkDeadline(o.deadline, name, result.pages);
    if (step.violation) throw step.violation;
  };
  if (depth <= 1) {
    // One page at a time (or the next one read while this one is handled): no peeking, so the
    // pages go straight through. (Driven through the peeking reader below instead, a sync of a
    // million redemptions peaked at about 230 MB against 175 MB this way.)
    for await (const page of feedPages(o.read, from, { readAhead: depth === 1 })) {
      const step = stepOf(page, pos, result.pages + 1);
      due(step);
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
      const step = ahead[0]?.page === page ? ahead[0].step : stepOf(page, pos, result.pages + 1);
      ahead = ahead[0]?.page === page ? ahead.slice(1) : [];
      due(step);
      if (!step.last)
        step.peek = (n = 1) => {
          // Steps are computed in order, each from the position after the one before; a step that
          // breaks the contract is never shown (it is thrown when its turn comes).
          while (ahead.length < n) {
            const before = ahead.at(-1)?.step ?? step;
            if (before.last || before.violation) return undefined;
            const p = reader.peek(ahead.length);
            if (!p) return undefined;
            ahead.push({ page: p, step: stepOf(p, before.next, before.pageNo + 1) });
          }
          const got = n >= 1 ? ahead[n - 1]!.step : undefined;
          return got?.violation ? undefined : got;
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
