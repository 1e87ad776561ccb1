// Batch stage: checked rows are gathered into batches of --batch-size and handed to the send stage
// (with --dry-run, only counted); rows rejected here wait, in line order, for the batches holding
// the rows around them (at most LOCAL_REJECT_CAP of them are held).
import { emit, emitPending, keepSample } from "./report.js";
import { sendBatch, takeAll, waitForRoom } from "./send.js";
import { type BatchReport, type ImportState, type Rejected, RowBatch } from "./state.js";

const LOCAL_REJECT_CAP = 1000;

/** After a row was added: a full batch is sent (the returned promise), otherwise nothing is awaited. */
export function rowAdded(st: ImportState): Promise<void> | undefined {
  return st.batch.length >= st.settings.batchSize ? flush(st) : undefined;
}

/** Counts a row rejected here; it is reported once no batch before it is waiting for an answer. */
export function rejectLocally(st: ImportState, r: Rejected): Promise<void> | undefined {
  st.summary.rejected++;
  st.pendingLocal.push(r);
  if (st.pendingLocal.length >= LOCAL_REJECT_CAP) return takeAll(st).then(() => emitPending(st));
  if (st.batch.length === 0 && st.window.inflight.length === 0) return emitPending(st);
  return undefined;
}

/**
 * Sends the rows gathered so far as one batch, with the local rejects before and among them. With
 * no rows gathered, takes every answer due and reports the rejects still waiting. Ctrl-C while
 * waiting for room in the window sets `interrupted` and sends nothing.
 */
export async function flush(st: ImportState): Promise<void> {
  if (st.batch.length === 0) {
    await takeAll(st);
    return emitPending(st);
  }
  if (!st.settings.dryRun) {
    await waitForRoom(st);
    if (st.ctx.signal.aborted) {
      st.interrupted = true;
      return;
    }
  }
  const rows = st.batch;
  st.batch = new RowBatch(st.window.bodies);
  const locals = st.pendingLocal;
  st.pendingLocal = [];
  const report: BatchReport = {
    firstLine: rows.lines[0]!,
    lastLine: rows.lines[rows.length - 1]!,
    rows: rows.length,
  };
  if (st.settings.dryRun) {
    keepSample(st, rows);
    rows.release();
    st.valid += rows.length;
    st.batches.push(report);
    return emit(st, locals);
  }
  await sendBatch(st, rows, report, locals);
}
