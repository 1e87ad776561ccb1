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
import { resolve } from "node:path";
import { UsageError } from "../../errors.js";
import type { Context } from "../../context.js";
import { cursorLockPath, legacyLabel, serviceOf, takeOutputLock } from "../../export/checkpoint.js";
import { resolveOutPath } from "../../export/durable-output.js";
import { csvHeader } from "../../export/redemption-rows.js";
import { takeRunLock } from "../../export/run-lock.js";
import { checkBomForAppend, UTF8_BOM } from "../../csv/write.js";
import { chooseFormat } from "../../io/table-file.js";
import { refuseExistingWorkbook } from "../../io/xlsx.js";
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
  corrections?: boolean | undefined;
  /** Page size of feed reads (1..1,000). */
  limit?: number | undefined;
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
  return {
    format,
    name,
    outPath: toStdout ? null : await resolveOutPath(o.out!),
    rawOut: toStdout ? "" : resolve(o.out!),
    fromStart: o.fromStart === true,
    bom: o.bom === true,
    corrections: o.corrections === true,
    limit: o.limit ?? 1000,
  };
}

/** Both locks before any request: the cursor's, and the output file's (another cursor may name it). */
async function takeLocks(ctx: Context, args: ExportArgs, service: string, held: Held): Promise<void> {
  const cursorLock = cursorLockPath(ctx.configDir(), service, "redemptions", args.name);
  held.locks.push(await takeRunLock(cursorLock, `Export cursor "${args.name}"`));
  if (args.outPath) held.locks.push(await takeOutputLock(ctx.configDir(), args.outPath));
}

/** The output file checked against the cursor, reading only: a refusal here has touched nothing. */
async function checkOutputFile(
  ctx: Context,
  args: ExportArgs,
  where: { service: string; label: string },
): Promise<FilePlan | undefined> {
  const { outPath, format } = args;
  // A workbook is never appended to: an existing file is refused, untouched (no request made).
  if (format === "xlsx") await refuseExistingWorkbook(outPath!, XLSX_HINT);
  if (!outPath || format === "xlsx") return undefined;
  const plan = await planFile(ctx, { ...args, ...where, out: outPath, format });
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
  const corrections = args.corrections
    ? ` and ${summary.corrections} correction${summary.corrections === 1 ? "" : "s"}`
    : "";
  const sheets =
    book && book.sheets > 1 ? ` (${book.sheets} sheets: Excel holds 1,048,576 rows a sheet)` : "";
  const repeated = summary.repeatedIds ? `; skipped ${summary.repeatedIds} repeated ids` : "";
  ctx.io.err(
    `Exported ${summary.rows} new redemption${summary.rows === 1 ? "" : "s"}${corrections} to ${args.outPath ?? "stdout"}${sheets}; cursor "${args.name}" ${written ? "saved" : "unchanged"}${repeated}.`,
  );
  if (ctx.io.json) ctx.io.outJson({ summary });
}

export async function redemptionsExportRun(
  o: RedemptionsExportOptions,
  ctx: Context,
): Promise<ExportSummary> {
  const args = await checkArgs(o, ctx);
  const target = await ctx.target();
  const where = { service: serviceOf(target), label: legacyLabel(target) };
  const held: Held = { locks: [] };
  const assertHeld = () => {
    for (const l of held.locks) l.assertHeld();
  };
  try {
    await takeLocks(ctx, args, where.service, held);
    const plan = await checkOutputFile(ctx, args, where);
    const { api, store, cursors } = await openCursors(ctx, args, plan, where, assertHeld);
    const summary: ExportSummary = {
      rows: 0,
      corrections: 0,
      pages: 0,
      cursor: args.name,
      cursorBefore: cursors.feedPos.cursor,
      cursorAfter: cursors.feedPos.cursor,
      out: args.outPath,
      repairedBytes: 0,
      repeatedIds: 0,
    };
    const s: ExportState = { ctx, args, api, store, cursors, held, summary, assertHeld };
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
    throw err;
  } finally {
    await held.output?.close().catch(() => {});
    for (const l of held.locks.reverse()) await l.release().catch(() => {});
  }
}
