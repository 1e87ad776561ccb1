// redemptions export: the cron-safe incremental copy of the redemption feed.
// Guarantees: every row exactly once across runs (the feed loop skips the repeated last page by id);
// the output is fsynced before the checkpoint that covers it is saved; a run records what it is about
// to write before writing it, so the tail a killed run left is cut only when it is provably that
// write; a file that is not exactly what this cursor committed (re-saved, edited, shortened,
// replaced, another format, another cursor's or organization's, or a file it never wrote) is refused
// with exit 2 before any feed request and any write; two runs of one cursor, or two cursors writing
// one file, never run at once (exit 9).
// --format xlsx writes a complete new workbook per run (never appended to, an existing file refused):
// the rows go to a temporary file, and the cursor is saved once, after the workbook is complete,
// fsynced and renamed into place; a run that fails or is interrupted leaves no workbook and no move.
//
// The run, in named steps over one explicit state (ExportState, export-state.ts):
//   checkArgs → takeLocks → checkOutputFile (export-check.ts; no request yet) → openCursors (GET /me)
//   → openOutput → writeHeader → exportFeedRows | exportFeedWorkbook → exportCorrections
//   (export-feed.ts) → finish.
import { plural } from "../../io/words.js";
import { UsageError } from "../../errors.js";
import type { Context } from "../../context.js";
import { feedPageSize } from "../shared/list.js";
import {
  attributesOf,
  type CheckpointStore,
  lockDestination,
  openCheckpoints,
} from "../../export/checkpoint.js";
import type { Destination } from "../../export/cursor-id.js";
import { resolveOutPath } from "../../export/durable-output.js";
import { feedDeadline } from "../../export/feed-loop.js";
import { csvHeader } from "../../export/redemption-rows.js";
import { checkBomForAppend, UTF8_BOM } from "../../csv/write.js";
import { machineFailure } from "../../io/machine-failure.js";
import { chooseFormat } from "../../io/table-file.js";
import { refuseExistingWorkbook } from "../../io/xlsx.js";
import { DURATION_EXAMPLES, parseDurationMs } from "../../spec/duration.js";
import { type FilePlan, planFile } from "./export-check.js";
import { exportCorrections, exportFeedRows, exportFeedWorkbook } from "./export-feed.js";
import {
  durableStep,
  type ExportArgs,
  type ExportState,
  type ExportSummary,
  type Held,
  openCursors,
  openOutput,
  saveCursors,
  XLSX_HINT,
} from "./export-state.js";

export type { ExportSummary } from "./export-state.js";

export interface RedemptionsExportOptions {
  out?: string | undefined;
  format?: string | undefined;
  /** CSV only: a UTF-8 BOM first, written when the file is created (refused on a file without one). */
  bom?: boolean | undefined;
  cursor?: string | undefined;
  fromStart?: boolean | undefined;
  /** Rows recorded since: a duration back from now ("7d") or a date/time. */
  since?: string | undefined;
  continueFrom?: string | undefined;
  corrections?: boolean | undefined;
  /** Items per feed request (1..1,000): --page-size. */
  pageSize?: number | undefined;
  /** The old name of --page-size (hidden; a notice says so). */
  limit?: number | undefined;
}

function parseSince(text: string | undefined, now: Date): Date | undefined {
  if (text === undefined) return undefined;
  const ms = parseDurationMs(text, { bareMilliseconds: false });
  if (ms !== undefined) return new Date(now.getTime() - ms);
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at))
    throw new UsageError(
      `--since ${text}: not a duration (${DURATION_EXAMPLES}) or a date (2026-11-01, 2026-11-01T08:00:00Z).`,
    );
  return new Date(at);
}

/**
 * What the cursor feeds: a CSV or NDJSON --out file is its own destination (--cursor only labels
 * it); stdout and workbooks keep a cursor only when one is named.
 */
function destinationOf(
  o: RedemptionsExportOptions,
  outPath: string | null,
  format: string,
): Destination | null {
  if (outPath && format !== "xlsx") return { kind: "file", path: outPath };
  return o.cursor !== undefined ? { kind: "named", name: o.cursor } : null;
}

/** The options checked, and the output's path resolved: nothing else touched. */
async function checkArgs(o: RedemptionsExportOptions, ctx: Context): Promise<ExportArgs> {
  const format = chooseFormat(o, ["csv", "ndjson", "xlsx"] as const);
  const name = o.cursor ?? "default";
  if (!/^[\w.-]{1,64}$/.test(name))
    throw new UsageError("--cursor must be 1-64 letters, digits, dots, dashes or underscores.");
  const toStdout = o.out === undefined || o.out === "-";
  if (ctx.io.json && toStdout) {
    throw new UsageError(
      "--json prints the summary on stdout, which already carries the rows.",
      "Use --out FILE with --json.",
    );
  }
  const outPath = toStdout ? null : await resolveOutPath(o.out!);
  const dest = destinationOf(o, outPath, format);
  if (o.continueFrom !== undefined && dest?.kind !== "file")
    throw new UsageError(
      "--continue-from goes with --out FILE (a CSV or NDJSON file the cursor appends to).",
    );
  return {
    format,
    name,
    dest,
    outPath,
    fromStart: o.fromStart === true,
    since: parseSince(o.since, ctx.clock.now()),
    continueFrom: o.continueFrom !== undefined ? await resolveOutPath(o.continueFrom) : null,
    bom: o.bom === true,
    corrections: o.corrections === true,
    limit: feedPageSize(o, ctx.io),
  };
}

/** The destination's lock (and the continued file's) before any request: a second run exits 9. */
async function takeLocks(ctx: Context, args: ExportArgs, held: Held): Promise<void> {
  if (!args.dest) return;
  const what =
    args.dest.kind === "file" ? `The output file ${args.dest.path}` : `Export cursor "${args.dest.name}"`;
  held.locks.push(await lockDestination(ctx.configDir(), args.dest, what));
  if (args.continueFrom)
    held.locks.push(
      await lockDestination(
        ctx.configDir(),
        { kind: "file", path: args.continueFrom },
        `The output file ${args.continueFrom}`,
      ),
    );
}

/** The output file checked against its cursor, reading only: a refusal here has touched nothing. */
async function checkOutputFile(
  args: ExportArgs,
  store: CheckpointStore | undefined,
): Promise<FilePlan | undefined> {
  const { outPath, format } = args;
  // A workbook is never appended to: an existing file is refused, untouched (no request made).
  if (format === "xlsx") await refuseExistingWorkbook(outPath!, XLSX_HINT);
  if (!outPath || format === "xlsx" || !store) return undefined;
  const plan = await planFile({
    out: outPath,
    format,
    fromStart: args.fromStart,
    continueFrom: args.continueFrom,
    store,
  });
  // --bom writes the BOM only into a new (or empty) file, never in front of content already there.
  if (args.bom && plan.verdict.kind !== "absent") await checkBomForAppend(outPath);
  return plan;
}

/** The header is a write like any other (recorded first, so a kill during it is repairable). */
async function writeHeader(s: ExportState): Promise<void> {
  const out = s.held.output;
  if (!out) return;
  const header = s.args.format === "csv" && out.empty ? (s.args.bom ? UTF8_BOM : "") + csvHeader() : "";
  await durableStep(s, Buffer.from(header, "utf8"), () => {});
}

/** A workbook is completed, fsynced and renamed into place first; only then does the cursor move, once. */
async function finish(s: ExportState): Promise<void> {
  const { args, summary, ctx } = s;
  const book = s.held.workbook;
  if (book) {
    s.assertHeld();
    await book.commit();
    await saveCursors(s, null);
  }
  const written = summary.rows + summary.corrections > 0;
  const corrections = args.corrections ? ` and ${plural(summary.corrections, "correction")}` : "";
  const sheets =
    book && book.sheets > 1 ? ` (${book.sheets} sheets: Excel holds 1,048,576 rows a sheet)` : "";
  const cursor = !args.dest
    ? "no cursor saved (name one with --cursor NAME to continue from here next time)"
    : args.dest.kind === "file"
      ? `its cursor ${written ? "saved" : "unchanged"}`
      : `cursor "${args.dest.name}" ${written ? "saved" : "unchanged"}`;
  const repeated = summary.repeatedIds ? `; skipped ${plural(summary.repeatedIds, "repeated id")}` : "";
  ctx.io.err(
    `Exported ${plural(summary.rows, "new redemption")}${corrections} to ${args.outPath ?? "stdout"}${sheets}; ${cursor}${repeated}.`,
  );
  if (ctx.io.json) ctx.io.outJson({ summary });
}

/**
 * Without a cursor, an export to a pipe or file reads the whole feed. An older version kept cursor
 * "default" for exports to stdout (a cron line with a shell redirection): such a run would now write
 * every row again into that file, so it is refused until the cursor is named (or --from-start said).
 */
function refuseUnnamedOldCursor(
  ctx: Context,
  args: ExportArgs,
  store: CheckpointStore | undefined,
  org: string,
): void {
  if (args.dest || args.fromStart || args.since || args.outPath || ctx.io.stdoutIsTTY || !store) return;
  const old = store
    .of({ kind: "named", name: "default" })
    .find((e) => e.cp.organizationId === org && e.cp.convertedFrom);
  if (old)
    throw new UsageError(
      `An older partner-cli kept cursor "default" for exports to stdout; exports to stdout keep a cursor now only when it is named, so this run would write every redemption again. Nothing was written.`,
      "To continue that cursor: add --cursor default. To read the whole feed without a cursor: --from-start.",
    );
}

export async function redemptionsExportRun(
  o: RedemptionsExportOptions,
  ctx: Context,
): Promise<ExportSummary> {
  const args = await checkArgs(o, ctx);
  const attributes = attributesOf(await ctx.target());
  const held: Held = { locks: [] };
  const assertHeld = () => {
    for (const l of held.locks) l.assertHeld();
  };
  try {
    await takeLocks(ctx, args, held);
    const store = await openCheckpoints(ctx.configDir(), await ctx.config());
    const plan = await checkOutputFile(args, store);
    const { api, cursors } = await openCursors(
      ctx,
      args,
      plan,
      args.dest ? store : undefined,
      attributes,
      assertHeld,
    );
    refuseUnnamedOldCursor(ctx, args, store, cursors.org.id);
    const summary: ExportSummary = {
      rows: 0,
      corrections: 0,
      pages: 0,
      cursor: args.dest ? args.name : null,
      cursorBefore: cursors.feedPos.cursor,
      cursorAfter: cursors.feedPos.cursor,
      out: args.outPath,
      repairedBytes: 0,
      repeatedIds: 0,
    };
    const deadline = feedDeadline(ctx);
    const s: ExportState = { ctx, args, api, cursors, held, summary, deadline, assertHeld };
    await openOutput(s, plan);
    await writeHeader(s);
    await (held.workbook ? exportFeedWorkbook(s) : exportFeedRows(s));
    summary.cursorAfter = cursors.feedPos.cursor;
    if (args.corrections) await exportCorrections(s);
    await finish(s);
    return summary;
  } catch (err) {
    // An unfinished workbook is removed; its rows were never counted (the cursor did not move).
    await held.workbook?.abort();
    const out = args.outPath ?? "stdout";
    const kept = held.workbook
      ? `The unfinished workbook was removed; ${out} and ${args.dest ? "its cursor" : "the cursors"} are as they were.`
      : `${out} holds every row up to its saved cursor, which is where it was; a failed write was cut back, nothing half-written is left.`;
    throw machineFailure(err, { kept }) ?? err;
  } finally {
    await held.output?.close().catch(() => {});
    for (const l of held.locks.reverse()) await l.release().catch(() => {});
  }
}
