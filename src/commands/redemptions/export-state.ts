// redemptions export, the state its steps share and the steps that set it up: learn the
// organization and find the cursors (openCursors), open the output (openOutput), and the one
// durable save of all three checkpoints (saveCursors).
import type { ApiClient } from "../../api/client.js";
import { getMe } from "../../api/me.js";
import type { ConfigStore } from "../../config/store.js";
import type { Context } from "../../context.js";
import { OutputChangedError } from "../../errors.js";
import {
  type Checkpoint,
  checkpointOf,
  type CursorId,
  describeCursor,
  findCheckpoint,
  type Found,
  orgLabel,
  positionOf,
  saveCheckpoints,
} from "../../export/checkpoint.js";
import {
  type DurableOutput,
  type FileState,
  openFileOutput,
  streamOutput,
} from "../../export/durable-output.js";
import { type FeedPosition, START } from "../../export/feed-loop.js";
import { type ExportFormat, REDEMPTION_TABLE } from "../../export/redemption-rows.js";
import type { RunLock } from "../../export/run-lock.js";
import { openXlsxSink, type XlsxSink } from "../../io/xlsx.js";
import { type FilePlan, n, repairPreviousFile, waysOn } from "./export-check.js";

export const CORRECTION_TYPES = ["redemption.excluded", "redemption.restored"] as const;

export const XLSX_HINT =
  "Each run writes a new workbook: give it a new name, for example --out redemptions-$(date +%F).xlsx (the cursor carries on where the last workbook ended).";

export interface ExportSummary {
  rows: number;
  corrections: number;
  pages: number;
  cursor: string;
  cursorBefore: string | null;
  cursorAfter: string | null;
  out: string | null;
  repairedBytes: number;
  /** Ids the service sent again within the run (beyond the repeated last page): skipped, not written. */
  repeatedIds: number;
}

/** The run's options once checked (no I/O yet beyond resolving the output's path). */
export interface ExportArgs {
  format: ExportFormat | "xlsx";
  /** The cursor's name. */
  name: string;
  /** The output file (real path), or null for stdout. */
  outPath: string | null;
  /** The path as given, made absolute ("" for stdout). */
  rawOut: string;
  fromStart: boolean;
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

/** Where the run's three cursors are saved, and the positions they move through. */
export interface Cursors {
  service: string;
  label: string;
  org: { id: string; name: string };
  main: Found;
  corr: Found[];
  /** Older entries this run's first save replaces. */
  adopted: string[];
  feedPos: FeedPosition;
  corrPos: FeedPosition[];
  /** Rows the main cursor has written into its file, this run's included. */
  total: number;
}

/** The explicit state the export's steps share. */
export interface ExportState {
  ctx: Context;
  args: ExportArgs;
  api: ApiClient;
  store: ConfigStore;
  cursors: Cursors;
  held: Held;
  summary: ExportSummary;
  /** Throws LockedError when a lock of the run is no longer its own: called before every write. */
  assertHeld(): void;
}

const idOf = (c: Pick<Cursors, "service" | "org">, name: string, type?: string): CursorId => ({
  service: c.service,
  organizationId: c.org.id,
  feed: type ? "corrections" : "redemptions",
  name,
  type: type ?? null,
});

/**
 * GET /me, then the cursors of this organization: a file another organization's or another
 * cursor's checkpoint wrote is refused here (still before any feed request and any write); a
 * checkpoint an older version saved is adopted; the previous file's unfinished write is cut.
 */
export async function openCursors(
  ctx: Context,
  args: ExportArgs,
  plan: FilePlan | undefined,
  where: { service: string; label: string },
  assertHeld: () => void,
): Promise<{ api: ApiClient; store: ConfigStore; cursors: Cursors }> {
  const api = await ctx.api();
  const org = (await getMe(api)).organization;
  const { name, outPath } = args;
  if (plan?.owner && plan.owner.cp.organizationId !== org.id) {
    throw new OutputChangedError(
      `Refusing to append to ${outPath}: it holds the redemptions of organization ${orgLabel(plan.owner.cp)}, and this run is for ${org.name} (${org.id}); one organization's rows never go into another's file.`,
      waysOn(name, false),
    );
  }
  const store = await ctx.config();
  const data = await store.read();
  const at = { service: where.service, org: { id: org.id, name: org.name } };
  const main = findCheckpoint(data, idOf(at, name), where.label);
  if (plan?.owner && plan.owner.key !== main.key && plan.owner.key !== main.adoptFrom) {
    throw new OutputChangedError(
      `Refusing to append to ${outPath}: it is the output of ${describeCursor(plan.owner.cp)}.`,
      waysOn(name, main.cp !== undefined),
    );
  }
  const corr = CORRECTION_TYPES.map((t) => findCheckpoint(data, idOf(at, name, t), where.label));
  if (main.adoptFrom)
    ctx.io.err(
      `Cursor "${name}" was saved by an older partner-cli as "${where.label}"; it is kept per service and organization now (${where.service}, ${org.name}) and continues where it stopped.`,
    );
  await repairPreviousFile(ctx, main.cp, outPath, assertHeld);
  const cursors: Cursors = {
    ...where,
    ...at,
    main,
    corr,
    adopted: [main, ...corr].flatMap((f) => (f.adoptFrom ? [f.adoptFrom] : [])),
    feedPos: args.fromStart ? START : positionOf(main.cp),
    corrPos: corr.map((f) => (args.fromStart ? START : positionOf(f.cp))),
    total: args.fromStart ? 0 : (main.cp?.rows ?? 0),
  };
  return { api, store, cursors };
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
      `Removed ${n(v.extra)} bytes that an interrupted run of cursor "${args.name}" wrote to ${args.outPath} after its last saved position (they are exactly the start of the write it had recorded).`,
    );
  } else if (v.kind === "intact" && v.replaced) {
    ctx.io.err(
      `Note: ${args.outPath} is another file than the one cursor "${args.name}" last wrote to, with exactly the content it committed; continuing.`,
    );
  }
}

/** Saves all three checkpoints in one locked write (`file`: the output's state, with an intent or not). */
export async function saveCursors(s: ExportState, file: FileState | null): Promise<void> {
  s.assertHeld();
  const c = s.cursors;
  const name = s.args.name;
  const common = { organizationName: c.org.name, out: s.args.outPath, now: s.ctx.clock.now() };
  await saveCheckpoints(
    s.store,
    [
      [c.main.key, checkpointOf(idOf(c, name), c.feedPos, { ...common, rows: c.total, file })],
      ...c.corr.map((f, i): [string, Checkpoint] => [
        f.key,
        checkpointOf(idOf(c, name, CORRECTION_TYPES[i]), c.corrPos[i]!, { ...common, rows: 0 }),
      ]),
    ],
    c.adopted,
  );
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
