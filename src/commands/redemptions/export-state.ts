// redemptions export, the state its steps share and the steps that set it up: learn the
// organization and find the cursors (openCursors), open the output (openOutput), and the one
// durable save of all three checkpoints (saveCursors).
import type { ApiClient } from "../../api/client.js";
import { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { OutputChangedError } from "../../errors.js";
import {
  type Attributes,
  type Checkpoint,
  atStart,
  type CheckpointStore,
  checkpointOf,
  type Entry,
  orgLabel,
  positionOf,
} from "../../export/checkpoint.js";
import { type CursorId, cursorKey, type Destination } from "../../export/cursor-id.js";
import {
  type DurableOutput,
  type FileState,
  openFileOutput,
  streamOutput,
} from "../../export/durable-output.js";
import { type FeedDeadline, type FeedPosition, START } from "../../export/feed-loop.js";
import { type ExportFormat, REDEMPTION_TABLE } from "../../export/redemption-rows.js";
import type { RunLock } from "../../export/run-lock.js";
import { openXlsxSink, type XlsxSink } from "../../io/xlsx.js";
import { type FilePlan, n, repairPreviousFile, waysOn } from "./export-check.js";

export const CORRECTION_TYPES = ["redemption.excluded", "redemption.restored"] as const;

export const XLSX_HINT =
  "Each run writes a new workbook: give it a new name, for example --out redemptions-$(date +%F).xlsx --cursor excel (the named cursor carries on where the last workbook ended).";

export interface ExportSummary {
  rows: number;
  corrections: number;
  pages: number;
  /** The cursor's label (`--cursor`, or "default"); null when the run kept no cursor. */
  cursor: string | null;
  cursorBefore: string | null;
  cursorAfter: string | null;
  out: string | null;
  repairedBytes: number;
  /** Ids the service sent again within the run (beyond the repeated last page): skipped, not written. */
  repeatedIds: number;
}

/** The run's options once checked (no I/O yet beyond resolving the output's paths). */
export interface ExportArgs {
  format: ExportFormat | "xlsx";
  /** The cursor's label: `--cursor NAME`, else "default". */
  name: string;
  /** What the cursor feeds; null: no cursor is kept (stdout or a workbook without --cursor). */
  dest: Destination | null;
  /** The output file (real path), or null for stdout. */
  outPath: string | null;
  fromStart: boolean;
  /** Rows recorded before this instant are not written (a new cursor keeps it). */
  since: Date | undefined;
  /** `--continue-from FILE`: the real path of the file whose cursor this file continues. */
  continueFrom: string | null;
  bom: boolean;
  corrections: boolean;
  /** Page size of feed reads. */
  limit: number;
}

/** What the run holds and must give back whatever happens (released in `finally`). */
export interface Held {
  locks: RunLock[];
  output?: DurableOutput | undefined;
  workbook?: XlsxSink | undefined;
}

/** Where the run's three checkpoints are saved (none when the run keeps no cursor), and their positions. */
export interface Cursors {
  store: CheckpointStore | undefined;
  attributes: Attributes;
  org: { id: string; name: string };
  /** The main checkpoint's key, and what is saved now (undefined: new). */
  main: { key: string; cp: Checkpoint | undefined };
  corr: { key: string; cp: Checkpoint | undefined }[];
  feedPos: FeedPosition;
  corrPos: FeedPosition[];
  /** Rows the main cursor has written into its file, this run's included. */
  total: number;
  /** The same for each correction cursor (CORRECTION_TYPES' order). */
  corrRows: number[];
  /** Rows recorded before this are not written (ms since the epoch), or undefined. */
  sinceMs: number | undefined;
}

/** The explicit state the export's steps share. */
export interface ExportState {
  ctx: Context;
  args: ExportArgs;
  api: ApiClient;
  cursors: Cursors;
  held: Held;
  summary: ExportSummary;
  /** One bound for all the feed reads of the run (the redemption feed and both correction feeds). */
  deadline: FeedDeadline | undefined;
  /** Throws LockedError when a lock of the run is no longer its own: called before every write. */
  assertHeld(): void;
}

const idOf = (org: string, dest: Destination, type?: string): CursorId => ({
  organizationId: org,
  feed: type ? "corrections" : "redemptions",
  type: type ?? null,
  dest,
});

/** What the run starts from: the file's own checkpoints, or those of the file it continues. */
interface Source {
  main: Checkpoint | undefined;
  corr: (Checkpoint | undefined)[];
}

function sourceOf(entries: readonly Entry[], org: string): Source {
  const get = (type?: string) =>
    entries.find(
      (e) =>
        e.cp.organizationId === org &&
        e.cp.feed === (type ? "corrections" : "redemptions") &&
        (e.cp.type ?? null) === (type ?? null),
    )?.cp;
  return { main: get(), corr: CORRECTION_TYPES.map((t) => get(t)) };
}

/** Refuses a file another organization's checkpoint wrote (after GET /me, still before any write). */
function checkOwner(plan: FilePlan | undefined, org: { id: string; name: string }): void {
  const owner = plan?.owner ?? plan?.continues;
  if (owner && owner.cp.organizationId !== org.id) {
    throw new OutputChangedError(
      `Refusing to ${plan?.owner ? "append to" : "continue"} ${owner.cp.out}: it holds the redemptions of organization ${orgLabel(owner.cp)}, and this run is for ${org.name} (${org.id}); one organization's rows never go into another's file.`,
      waysOn(owner.cp.out ?? "", true),
    );
  }
}

/**
 * GET /me, then the cursors of this organization: a file another organization's checkpoint wrote
 * is refused here (still before any feed request and any write). With --continue-from, the old
 * file's unfinished write is cut, then its cursor is closed and this file takes its positions.
 */
export async function openCursors(
  ctx: Context,
  args: ExportArgs,
  plan: FilePlan | undefined,
  store: CheckpointStore | undefined,
  attributes: Attributes,
  assertHeld: () => void,
): Promise<{ api: ApiClient; cursors: Cursors }> {
  const api = await ctx.api();
  const org = (await getMe(api)).organization;
  checkOwner(plan, org);
  const dest = args.dest;
  const entries = dest && store ? store.of(dest) : [];
  const own = sourceOf(entries, org.id);
  let src = own;
  if (plan?.continues && dest && store) src = await takeOver(ctx, args, plan, store, org.id, assertHeld);
  const fresh = args.fromStart || !src.main;
  const since = fresh ? args.since : src.main?.since ? new Date(src.main.since) : undefined;
  const cursors: Cursors = {
    store,
    attributes,
    org: { id: org.id, name: org.name },
    main: { key: dest ? keyOf(org.id, dest) : "", cp: own.main },
    corr: CORRECTION_TYPES.map((t, i) => ({ key: dest ? keyOf(org.id, dest, t) : "", cp: own.corr[i] })),
    feedPos: args.fromStart ? START : positionOf(src.main),
    corrPos: CORRECTION_TYPES.map((_, i) => (args.fromStart ? START : positionOf(src.corr[i]))),
    total: args.fromStart || plan?.continues ? 0 : (src.main?.rows ?? 0),
    corrRows: src.corr.map((cp) => (args.fromStart || plan?.continues ? 0 : (cp?.rows ?? 0))),
    sinceMs: since?.getTime(),
  };
  return { api, cursors };
}

const keyOf = (org: string, dest: Destination, type?: string) => cursorKey(idOf(org, dest, type));

/**
 * --continue-from OLD: OLD's unfinished write (if provably its own) is cut, OLD's checkpoints are
 * closed (naming this file), and their positions are this file's start. Closing comes first: a crash
 * before this file's first save leaves OLD closed in its favour, and the next run here continues it.
 */
async function takeOver(
  ctx: Context,
  args: ExportArgs,
  plan: FilePlan,
  store: CheckpointStore,
  org: string,
  assertHeld: () => void,
): Promise<Source> {
  const oldPath = plan.continues!.cp.out!;
  const oldDest: Destination = { kind: "file", path: oldPath };
  const old = store.of(oldDest);
  const src = sourceOf(old, org);
  await repairPreviousFile(ctx, src.main, assertHeld);
  if (!src.main?.closed) {
    assertHeld();
    const at = ctx.clock.now().toISOString();
    const closed = { continuedIn: args.outPath!, at };
    await store.replace(
      oldDest,
      old.map((e) => (e.cp.organizationId === org ? { key: e.key, cp: { ...e.cp, closed } } : e)),
    );
    ctx.io.err(
      `The cursor of ${oldPath} continues in ${args.outPath}; nothing more is appended to ${oldPath}.`,
    );
  }
  return src;
}

/** Opens the output (a temporary workbook, the file as planned, or stdout), saying what it repaired. */
export async function openOutput(s: ExportState, plan: FilePlan | undefined): Promise<void> {
  const { args, ctx, held, summary } = s;
  if (args.format === "xlsx") {
    held.workbook = await openXlsxSink(args.outPath!, REDEMPTION_TABLE, {
      sheetName: "Redemptions",
      refuseExisting: { hint: XLSX_HINT },
    });
    return;
  }
  if (!plan) {
    held.output = streamOutput(ctx.io.stdout);
    return;
  }
  held.output = await openFileOutput(args.outPath!, args.format, plan.verdict, s.assertHeld);
  const v = plan.verdict;
  if (v.kind === "tail") {
    summary.repairedBytes = v.extra;
    ctx.io.err(
      `Removed ${n(v.extra)} bytes that an interrupted run wrote to ${args.outPath} after its last saved position (they are exactly the start of the write it had recorded).`,
    );
  } else if (v.kind === "intact" && v.replaced) {
    ctx.io.err(
      `Note: ${args.outPath} is another file than the one its cursor last wrote to, with exactly the content it committed; continuing.`,
    );
  }
}

/** Saves all three checkpoints in one write of the destination's file (`file`: the output's state, with an intent or not). */
export async function saveCursors(s: ExportState, file: FileState | null): Promise<void> {
  const c = s.cursors;
  const dest = s.args.dest;
  if (!dest || !c.store) return;
  s.assertHeld();
  const common = {
    name: s.args.name,
    organizationName: c.org.name,
    attributes: c.attributes,
    now: s.ctx.clock.now(),
  };
  const since = c.sinceMs !== undefined ? { since: new Date(c.sinceMs).toISOString() } : {};
  // Where a cursor came from (converted from an older version's config.json) stays on it.
  const origin = (cp: Checkpoint | undefined) =>
    cp?.convertedFrom ? { convertedFrom: cp.convertedFrom } : {};
  await c.store.save(dest, [
    {
      key: c.main.key,
      cp: {
        ...checkpointOf(idOf(c.org.id, dest), c.feedPos, { ...common, rows: c.total, file }),
        ...since,
        ...origin(c.main.cp),
      },
    },
    // A correction cursor exists once a run used --corrections (or took one over): cursors list
    // shows no correction cursor for a file whose runs never asked for corrections.
    ...c.corr
      .map((f, i) => ({
        key: f.key,
        cp: {
          ...checkpointOf(idOf(c.org.id, dest, CORRECTION_TYPES[i]), c.corrPos[i]!, {
            ...common,
            rows: c.corrRows[i]!,
          }),
          ...origin(f.cp),
        },
      }))
      .filter((_e, i) => s.args.corrections || c.corr[i]!.cp || !atStart(c.corrPos[i]!)),
  ]);
}

/**
 * One durable step: record the intent (unless the save before already did), write, fsync, then
 * move the positions (`advance`) and save them, with the intent of the write that comes next when
 * its bytes are ready (`next`): one save per page instead of two. Returns whether `next` was recorded.
 */
export async function durableStep(
  s: ExportState,
  buf: Buffer,
  advance: () => void,
  o: { intentSaved?: boolean; next?: () => Buffer | undefined } = {},
): Promise<boolean> {
  const out = s.held.output!;
  const intent = buf.length && !o.intentSaved ? out.intentFor(buf) : null;
  if (intent) await saveCursors(s, { ...out.state()!, intent });
  s.assertHeld();
  await out.append(buf);
  advance();
  const next = o.next?.();
  const state = out.state();
  // The next write's intent starts at the new committed length, as if saved on its own before it.
  const nextIntent = state && next?.length ? out.intentFor(next) : null;
  await saveCursors(s, state && nextIntent ? { ...state, intent: nextIntent } : state);
  return nextIntent !== null;
}
