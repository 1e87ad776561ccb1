// Send stage: batches go to POST /creators/batch, up to the window's limit in flight; their answers
// are taken in file order (the oldest first), so rejected rows and batch reports keep the file's
// order. A failed batch stops the import after the others in flight have ended, saying exactly
// which batches were saved.
import { batchCreators } from "../../../api/creators.js";
import type { BatchResult } from "../../../spec/creators.js";
import { CancelledError, ProtocolError } from "../../../errors.js";
import { emit, emitMerged, sentSoFar } from "./report.js";
import type { BatchAnswer, BatchReport, ImportState, InFlight, Rejected, RowBatch } from "./state.js";

/** "lines 2-1001" (CSV) or "Sheet1!A2:E1001" (a workbook): the rows of a batch. */
const rowsOf = (st: ImportState, e: InFlight) => st.places.spans([[e.report.firstLine, e.report.lastLine]]);
const range = (st: ImportState, e: InFlight) => `batch ${e.number} (${rowsOf(st, e)})`;

/** Cells of a sent row when no rejects file is written. */
const NO_CELLS: string[] = [];

/** The row outcomes by index (as the service sends them, usually: then not copied). */
function inIndexOrder(rows: BatchResult["rows"]): BatchResult["rows"] {
  for (let i = 1; i < rows.length; i++)
    if (!(rows[i - 1]!.index < rows[i]!.index)) return [...rows].sort((a, b) => a.index - b.index);
  return rows;
}

/**
 * A batch's answer reduced as soon as it arrives (its thousand outcome objects are let go at once,
 * not kept until the answers before it are taken): the counts, the rows not accepted, and what
 * does not fit the batch sent.
 *
 * The spec's row outcomes are added, updated and rejected; only the summary counts `unchanged`
 * (rows that changed nothing, reported "updated"). So the accepted rows that are not "added" are
 * split by the summary: `summary.unchanged` of them unchanged, the rest updated. A summary that
 * does not fit the rows is not trusted: those rows then count as updated (an older sandbox's
 * "unchanged" row outcome still counts as unchanged).
 */
export function reduceAnswer(res: BatchResult, sent: number): BatchAnswer {
  const counts = { added: 0, updated: 0, unchanged: 0, rejected: 0 };
  const rejected: BatchAnswer["rejected"] = [];
  let badIndex: number | undefined;
  let saidUnchanged = 0;
  for (const out of inIndexOrder(res.rows)) {
    const i = out.index;
    if (!(i >= 0 && i < sent)) {
      badIndex = i;
      break;
    }
    if (out.outcome === "rejected" || out.reasons.length > 0) {
      counts.rejected++;
      rejected.push({ index: i, reasons: out.reasons });
    } else if (out.outcome === "added") counts.added++;
    else if ((out.outcome as string) === "unchanged") saidUnchanged++;
    else counts.updated++; // "updated", or an outcome this version does not know: accepted either way
  }
  const unchanged = (res.summary as { unchanged?: unknown } | undefined)?.unchanged;
  const fromSummary = typeof unchanged === "number" ? unchanged - saidUnchanged : 0;
  const moved = Number.isSafeInteger(fromSummary) && fromSummary > 0 && fromSummary <= counts.updated;
  counts.unchanged = saidUnchanged + (moved ? fromSummary : 0);
  if (moved) counts.updated -= fromSummary;
  return { outcomes: res.rows.length, counts, rejected, badIndex };
}

/** Counts one answered batch and reports its rejected rows (with the local ones around them). */
async function account(st: ImportState, e: InFlight, res: BatchAnswer): Promise<void> {
  const rows = e.rows;
  if (res.outcomes !== rows.length) {
    throw new ProtocolError(
      `The service answered a batch of ${rows.length} creators with ${res.outcomes} row outcomes.`,
    );
  }
  if (res.badIndex !== undefined)
    throw new ProtocolError(`The service answered a batch with an unknown row index ${res.badIndex}.`);
  const counts = res.counts;
  const serverRejected: Rejected[] = res.rejected.map(({ index: i, reasons }) => ({
    line: rows.lines[i]!,
    externalId: rows.ids[i]!,
    reasons,
    cells: rows.cells[i] ?? NO_CELLS,
  }));
  const summary = st.summary;
  summary.added += counts.added;
  summary.updated += counts.updated;
  summary.unchanged += counts.unchanged;
  summary.rejected += counts.rejected;
  st.sentRows += rows.length;
  await emitMerged(st, e.locals, serverRejected);
  st.batches.push({ ...e.report, ...counts, ...(e.repeated ? { repeated: true } : {}) });
  st.numbers.push(e.number);
  if (e.repeated) {
    st.ctx.io.err(
      `Batch ${e.number} (${rowsOf(st, e)}) was sent again after an uncertain 500 answer; ` +
        'rows the lost attempt had saved are counted as "unchanged".',
    );
  }
}

/** Ctrl-C while requests were in flight: the outcome of those without an answer is unknown. */
function interruptedInFlight(st: ImportState, head: InFlight, all: InFlight[], failed: InFlight[]) {
  const uncertain = failed.filter((e) => e.error instanceof CancelledError);
  const one = uncertain.length === 1 ? uncertain[0]! : undefined;
  const which = one
    ? `${range(st, one)} was being sent; that batch may or may not have been saved`
    : `${uncertain.length} batches were being sent (${uncertain.map((e) => `batch ${e.number}, ${rowsOf(st, e)}`).join("; ")}); those may or may not have been saved`;
  const savedAfter = all.some((e) => e.res !== undefined && e.number > head.number);
  const others = one && !savedAfter ? "Before it" : one ? "Besides it" : "Besides those";
  return new CancelledError(
    `Interrupted while ${which}. ${others}, ${sentSoFar(st)}.`,
    'Run the same import again to finish: rows already saved come back "unchanged".',
  );
}

/**
 * The oldest batch in flight failed: wait for the others, count those that were saved, report the
 * rest's local rejects in order, and say what happened.
 */
async function failAt(st: ImportState, head: InFlight): Promise<never> {
  const inflight = st.window.inflight;
  await Promise.all(inflight.map((e) => e.done));
  const all = inflight.splice(0);
  const failed: InFlight[] = [];
  for (const e of all) {
    if (e.res) await account(st, e, e.res);
    else {
      failed.push(e);
      await emit(st, e.locals);
    }
  }
  st.out.progress.stop();
  const err = head.error;
  if (err instanceof CancelledError) throw interruptedInFlight(st, head, all, failed);
  st.ctx.io.err(
    `Stopped at ${range(st, head)}: ${sentSoFar(st)}. ` +
      (all.length === 1
        ? "Rows from that batch on were not imported; run the same import again (saved rows come back unchanged)."
        : "Other rows were not imported; run the same import again (saved rows come back unchanged)."),
  );
  throw err;
}

/** Takes the oldest batch's answer (waiting for it). */
export async function takeHead(st: ImportState): Promise<void> {
  const w = st.window;
  const head = w.inflight[0]!;
  await head.done;
  if (!head.res) return failAt(st, head);
  w.inflight.shift();
  await account(st, head, head.res);
  if (!head.slowed && ++w.calm >= w.limit && w.limit < st.settings.concurrency) {
    w.limit++;
    w.calm = 0;
  }
}

/** Takes every answer still due, in file order. */
export async function takeAll(st: ImportState): Promise<void> {
  while (st.window.inflight.length) await takeHead(st);
}

/** Makes room in the window: waits for the oldest answers while it is full. */
export async function waitForRoom(st: ImportState): Promise<void> {
  const w = st.window;
  while (w.inflight.length >= w.limit) await takeHead(st);
}

/** Sends one batch (its answer is taken later, in file order; at once with --concurrency 1). */
export async function sendBatch(
  st: ImportState,
  rows: RowBatch,
  report: BatchReport,
  locals: Rejected[],
): Promise<void> {
  const w = st.window;
  const api = await st.ctx.api();
  const e: InFlight = {
    number: ++w.numbered,
    rows,
    report,
    locals,
    repeated: false,
    slowed: false,
    done: Promise.resolve(),
  };
  const { buf, body } = rows.body();
  e.done = batchCreators(api, body, {
    onRepeat: () => {
      e.repeated = true;
    },
    onRetry: ({ status }) => {
      if (status !== 429) return;
      e.slowed = true;
      w.calm = 0;
      if (e.number > w.halvedBefore) {
        w.limit = Math.max(1, w.limit >> 1);
        w.halvedBefore = w.numbered;
      }
    },
  }).then(
    (res) => {
      e.res = reduceAnswer(res, rows.length);
      w.bodies.push(buf); // answered: the body was sent in full and is not needed again
    },
    (err: unknown) => {
      e.error = err;
    },
  );
  w.inflight.push(e);
  // --concurrency 1: one batch at a time, its answer taken before the next row is read (as before).
  if (st.settings.concurrency === 1) await takeHead(st);
}
