// redemptions export, the steps that move rows: the feed's pages into a file or stdout (kept as
// rendered rows, one save per page), the feed into a workbook, and the correction feeds.
import type { FeedPage } from "../../api/paging.js";
import { listEvents } from "../../api/events.js";
import { getRedemption, redemptionFeed } from "../../api/redemptions.js";
import { ApiError, CancelledError } from "../../errors.js";
import { startStatusText } from "../../io/progress.js";
import {
  BY_OCCURRED_AT,
  BY_RECORDED_AT,
  type FeedPosition,
  type FeedStep,
  runFeed,
  uuidKeys,
} from "../../export/feed-loop.js";
import {
  BufferPool,
  type Change,
  type ExportFormat,
  type RowBuffer,
  redemptionCells,
  renderRowBuffer,
  renderRows,
} from "../../export/redemption-rows.js";
import type { EventEnvelope } from "../../spec/events.js";
import type { Redemption } from "../../spec/redemptions.js";
import { CORRECTION_TYPES, durableStep, type ExportState } from "./export-state.js";

/** What an interruption (Ctrl-C) says: for a workbook nothing was written; else what was saved. */
function interrupted(s: ExportState): () => Error {
  const { args, summary } = s;
  return () =>
    new CancelledError(
      s.held.workbook
        ? `Interrupted; ${args.outPath} was not written and no cursor moved. Run again to export these rows.`
        : `Interrupted; ${summary.rows} rows exported and saved. Run again to continue.`,
    );
}

/** The page without the rows recorded before the cursor's `--since` (a cursor keeps it from its first run). */
function recordedSince<P extends { items: Redemption[] }>(page: P, s: ExportState): P {
  const since = s.cursors.sinceMs;
  if (since === undefined) return page;
  return { ...page, items: page.items.filter((r) => Date.parse(r.recordedAt) >= since) };
}

/**
 * A feed page as the export keeps it: the ids, the first and last recordedAt (the feed's order, which
 * runFeed checks), and the rows rendered into one buffer.
 */
type RowsPage = FeedPage<string> & {
  rows: RowBuffer;
  span: readonly [string, string] | undefined;
  /** The ids as UUID bits (uuidKeys), for runFeed's repeated-id check; undefined when the ids are kept instead. */
  keys: Uint32Array | undefined;
};

/** The feed's order on a page kept as ids: its span, taken while the page was parsed. */
const ROWS_ORDER = { field: "recordedAt", span: (p: FeedPage<string>) => (p as RowsPage).span };

/** The loop's options every feed read of the export shares. */
function common(s: ExportState, name: string) {
  return { signal: s.ctx.signal, interrupted: interrupted(s), deadline: s.deadline, name };
}

/** The bytes of a step's fresh rows: all of its page's rows (a view), or those not skipped. */
function pageBytes(s: FeedStep<string>): Buffer {
  const { items, rows } = s.page as RowsPage;
  const row = (i: number) => rows.buf.subarray(i === 0 ? 0 : rows.ends[i - 1], rows.ends[i]);
  if (!s.taken) return rows.buf.subarray(0, items.length ? rows.ends.at(-1) : 0);
  // Some rows skipped (the repeated last page, ids the service sent again): the rows taken, in order.
  return Buffer.concat(s.taken.map(row));
}

/**
 * The ids of a page as runFeed needs them. It reads a page's id strings only to skip those a resumed
 * run already wrote (the first page, or a page read again with the same cursor) and to record them on
 * a page that ends the walk or repeats its cursor; it checks every page for ids the service sent
 * again through the ids' bits (uuidKeys, `keys`). The other pages keep no id strings (a thousand
 * strings per page waiting in the read-ahead, moved to the old generation and held until a full
 * collection: half of the export's garbage): their items are placeholders, and an id asked of one is
 * an error rather than a wrong id. A page whose ids are not all UUIDs keeps its ids (and no keys).
 */
const NOT_KEPT = undefined as unknown as string;

function idKeeper(from: FeedPosition) {
  const seen = new Set<string | undefined>();
  return {
    of(after: string | undefined, page: { items: readonly { id: string }[]; nextCursor: string | null }) {
      const again = seen.has(after);
      seen.add(after);
      const { items } = page;
      const keys = uuidKeys(items.length, (i) => items[i]!.id);
      const needed =
        keys === undefined ||
        again ||
        (after === (from.cursor ?? undefined) && from.skipIds.length > 0) ||
        page.nextCursor === null ||
        page.nextCursor === after;
      // Filled (not holes, which map and forEach would skip): an id asked of one is undefined.
      const ids = needed ? items.map((r) => r.id) : new Array<string>(items.length).fill(NOT_KEPT);
      return { ids, keys };
    },
    idOf(id: string | undefined): string {
      if (id === undefined)
        throw new Error("partner-cli bug: a feed page's ids were not kept; nothing was lost.");
      return id;
    },
  };
}

/** Pages written as one block (one intent, one write, one fsync, one commit) when they were read ahead. */
const GROUP = 3;

/** Consecutive steps written as one block, and the block's bytes. */
interface Block {
  steps: FeedStep<string>[];
  buf: Buffer;
  /** The pooled buffer `buf` was copied into (for more than one page), given back once written. */
  pooled?: Buffer | undefined;
}

function blockOf(steps: FeedStep<string>[], pool: BufferPool | undefined): Block {
  const parts = steps.map(pageBytes);
  if (parts.length === 1) return { steps, buf: parts[0]! };
  const size = parts.reduce((n, p) => n + p.length, 0);
  const pooled = pool ? pool.take(size) : Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of parts) at += p.copy(pooled, at);
  return { steps, buf: pooled.subarray(0, size), pooled: pool && pooled };
}

/** Up to GROUP steps that have been read, from `offset` pages after `base` (0: base itself). */
function readSteps(base: FeedStep<string>, offset: number): FeedStep<string>[] {
  const steps: FeedStep<string>[] = [];
  for (let i = offset; steps.length < GROUP; i++) {
    const step = i === 0 ? base : base.peek?.(i);
    if (!step) break;
    steps.push(step);
    if (step.last) break;
  }
  return steps;
}

/**
 * The feed into a file or stdout. Each page is rendered as soon as it is read and kept as its rows'
 * bytes and ids (the parsed objects die at once, so pages read ahead hold little memory); a page's
 * buffer goes back to a small pool once written to a file (stdout may still hold it). Pages are read
 * up to 2 x GROUP ahead. The pages already read when one comes up (up to GROUP) are written as one
 * block: one intent, one write and fsync, one commit saved with the next block's intent when its
 * pages are there. So a run saves the config store at most once per page, and less when the reads
 * are ahead of the writes; when the service is the slower side, each page is its own block.
 */
export async function exportFeedRows(s: ExportState): Promise<void> {
  const { args, ctx, summary, cursors } = s;
  const format = args.format as ExportFormat;
  const pool = args.outPath ? new BufferPool() : undefined;
  /** Blocks of more than one page are copied into buffers of their own pool. */
  const blockPool = args.outPath ? new BufferPool(2) : undefined;
  // Rows on stdout are the data: no status line then (a terminal would mix the two).
  const status = args.outPath !== null ? startStatusText(ctx.io) : undefined;
  const progress = () => status?.show(`Exported ${summary.rows} rows…`);
  /** The next block, when the latest save recorded its intent. */
  let ready: Block | undefined;
  /** Steps written and committed with a block before their turn came. */
  const written = new Set<FeedStep<string>>();
  const keeper = idKeeper(cursors.feedPos);
  try {
    await runFeed<string>({
      ...common(s, "the redemption feed"),
      read: async (after, onCursor): Promise<RowsPage> => {
        // The next cursor is taken off the answer's text, so the next request goes out before this
        // page is parsed, checked and rendered (runFeed checks it against the parsed page).
        const page = recordedSince(await redemptionFeed(s.api, { after, limit: args.limit }, onCursor), s);
        const rows = renderRowBuffer(format, page.items, pool);
        const { items } = page;
        const { ids, keys } = keeper.of(after, page);
        return {
          items: ids,
          keys,
          nextCursor: page.nextCursor,
          rows,
          span: items.length ? [items[0]!.recordedAt, items[items.length - 1]!.recordedAt] : undefined,
        };
      },
      idOf: keeper.idOf,
      keysOf: (p) => (p as RowsPage).keys,
      order: ROWS_ORDER,
      from: cursors.feedPos,
      readAhead: 2 * GROUP,
      handle: async (step) => {
        summary.pages++;
        if (written.delete(step)) return void progress();
        const block = ready?.steps[0] === step ? ready : blockOf(readSteps(step, 0), blockPool);
        const intentSaved = block === ready;
        ready = undefined;
        let following: Block | undefined;
        const advance = () => {
          for (const st of block.steps) {
            summary.rows += st.fresh.length;
            summary.repeatedIds += st.duplicates;
            cursors.total += st.fresh.length;
          }
          cursors.feedPos = block.steps.at(-1)!.next;
        };
        const next = () => {
          const steps = readSteps(step, block.steps.length);
          following = steps.length ? blockOf(steps, blockPool) : undefined;
          return following?.buf;
        };
        if (await durableStep(s, block.buf, advance, { intentSaved, next })) ready = following;
        for (const st of block.steps.slice(1)) written.add(st);
        // Written (and its tail copied into the running digest): the pages' buffers can be reused.
        if (pool)
          for (const st of block.steps) if (st.fresh.length) pool.give((st.page as RowsPage).rows.buf);
        if (block.pooled) blockPool?.give(block.pooled);
        progress();
      },
    });
  } finally {
    status?.stop();
  }
}

/** The feed into the workbook: positions move in memory, saved once the workbook is in place. */
export async function exportFeedWorkbook(s: ExportState): Promise<void> {
  const { args, ctx, summary, cursors } = s;
  const book = s.held.workbook!;
  const status = startStatusText(ctx.io);
  try {
    await runFeed<Redemption>({
      ...common(s, "the redemption feed"),
      read: async (after) => recordedSince(await redemptionFeed(s.api, { after, limit: args.limit }), s),
      idOf: (r) => r.id,
      order: BY_RECORDED_AT,
      from: cursors.feedPos,
      handle: async (step) => {
        summary.pages++;
        s.assertHeld();
        await book.write(step.fresh.map((r) => redemptionCells(r)));
        cursors.feedPos = step.next;
        summary.rows += step.fresh.length;
        summary.repeatedIds += step.duplicates;
        cursors.total += step.fresh.length;
        status.show(`Exported ${summary.rows} rows…`);
      },
    });
  } finally {
    status.stop();
  }
}

/** Rows of redemptions: one durable step, or into the workbook (positions move in memory). */
async function emit(
  s: ExportState,
  rows: { redemption: Redemption; change?: Change | undefined }[],
  advance: () => void,
): Promise<void> {
  const book = s.held.workbook;
  if (book) {
    s.assertHeld();
    await book.write(rows.map((r) => redemptionCells(r.redemption, r.change)));
    advance();
  } else await durableStep(s, Buffer.from(renderRows(s.args.format as ExportFormat, rows), "utf8"), advance);
}

/**
 * The correction feeds (one cursor per event type): every correction in the log gets a change row
 * with the redemption's current state, the first run included, so a correction racing the feed read
 * is never lost.
 */
export async function exportCorrections(s: ExportState): Promise<void> {
  const { ctx, cursors, summary } = s;
  for (let i = 0; i < CORRECTION_TYPES.length; i++) {
    const type = CORRECTION_TYPES[i]!;
    await runFeed<EventEnvelope>({
      ...common(s, `the event log (${type})`),
      read: (after) => listEvents(s.api, { after, type, limit: 1000 }),
      idOf: (e) => e.id,
      order: BY_OCCURRED_AT,
      from: cursors.corrPos[i]!,
      handle: async (step) => {
        const rows: { redemption: Redemption; change: Change }[] = [];
        for (const e of step.fresh) {
          if (e.sample) continue;
          const id = String((e.data as { redemptionId?: unknown }).redemptionId ?? "");
          try {
            const redemption = await getRedemption(s.api, id);
            if (s.cursors.sinceMs !== undefined && Date.parse(redemption.recordedAt) < s.cursors.sinceMs)
              continue;
            rows.push({ redemption, change: { type: e.type, eventId: e.id, occurredAt: e.occurredAt } });
          } catch (err) {
            if (!(err instanceof ApiError && err.status === 404)) throw err;
            ctx.io.err(`Skipped correction ${e.id}: redemption ${id} is no longer readable.`);
          }
        }
        await emit(s, rows, () => {
          cursors.corrPos[i] = step.next;
          cursors.corrRows[i]! += rows.length;
          summary.corrections += rows.length;
          summary.repeatedIds += step.duplicates;
        });
      },
    });
  }
}
