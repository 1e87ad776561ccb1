// Report stage: rejected rows in line order (to --json, the rejects file and the first few to
// stderr), the batch reports and the summary, what was saved when the import stops early, and the
// closing line.
import type { Context } from "../../../context.js";
import { footerNote } from "../../../csv/footer.js";
import { type ColumnMap, loose, REJECTS_COLUMNS } from "../../../csv/headers.js";
import type { Places } from "../../../csv/place.js";
import { openCsvSink } from "../../../csv/write.js";
import { PartialFailure } from "../../../errors.js";
import { type Progress, startProgress } from "../../../io/progress.js";
import { type Column, renderTable } from "../../../io/render.js";
import {
  fmt,
  type ImportSettings,
  type ImportState,
  JsonOut,
  type Outputs,
  plural,
  type Rejected,
  type RowBatch,
} from "./state.js";

const STDERR_REJECT_CAP = 20;
/** Warnings listed on stderr at the end (the rest are counted). */
export const STDERR_WARNING_CAP = 20;

/** The rejects file: line and reasons, then the input's own columns in its order (a rejects file's line and reasons columns left out). */
function rejectsLayout(map: ColumnMap, places: Places) {
  const skip = (h: string) => (REJECTS_COLUMNS as readonly string[]).includes(loose(h));
  const keep = map.headers.map((h, i) => (skip(h) ? -1 : i)).filter((i) => i >= 0);
  const width = map.headers.length;
  return {
    header: ["line", "reasons", ...keep.map((i) => map.headers[i]!)],
    row: (r: Rejected) => [
      places.rejectsLine(r.line),
      r.reasons.join("; "),
      ...keep.filter((i) => i < r.cells.length).map((i) => r.cells[i]!),
      ...r.cells.slice(width),
    ],
  };
}

/** Opens the outputs: the rejects file (when asked for), the --json writer, the progress bar. */
export async function openOutputs(
  ctx: Context,
  s: ImportSettings,
  src: { map: ColumnMap; places: Places },
  total: number,
): Promise<Outputs> {
  const io = ctx.io;
  const layout = rejectsLayout(src.map, src.places);
  const sink = s.rejects ? await openCsvSink(s.rejects, layout.header, io.stdout) : undefined;
  const json = new JsonOut(io.json ? (t) => io.out(t) : undefined);
  const progress: Progress = s.dryRun
    ? { update() {}, stop() {} }
    : await startProgress(io, "Importing", total);
  return { json, sink, row: layout.row, progress, shown: [], warnings: [], warned: 0, sample: [] };
}

/** --dry-run shows this many rows as they would be sent. */
const DRY_RUN_SAMPLE = 5;
const SAMPLE_FIELDS = ["externalId", "name", "email", "handle", "active"] as const;

/**
 * --dry-run: keeps the first rows of a batch that is not sent, as the items of its request body
 * (the body's own bytes, read back), until DRY_RUN_SAMPLE are kept.
 */
export function keepSample(st: ImportState, rows: RowBatch): void {
  const sample = st.out.sample;
  if (sample.length >= DRY_RUN_SAMPLE || rows.length === 0) return;
  const { body } = rows.body();
  const items = (JSON.parse(body.toString("utf8")) as { creators: Record<string, unknown>[] }).creators;
  sample.push(...items.slice(0, DRY_RUN_SAMPLE - sample.length));
}

/**
 * The sample as a small table for stderr (with the summary: stdout holds only data, the --json
 * document or `--rejects -`). Values as in the JSON sent (active true/false); a field not sent is
 * blank, one sent empty (null, --clear-empty) is "-".
 */
function sampleLines(sample: readonly Record<string, unknown>[]): string[] {
  const fields = SAMPLE_FIELDS.filter((f) => sample.some((item) => f in item));
  const columns: Column<Record<string, unknown>>[] = fields.map((f) => ({
    header: f,
    value: (item) => (!(f in item) ? "" : typeof item[f] === "boolean" ? String(item[f]) : item[f]),
  }));
  return renderTable(sample, columns, false).trimEnd().split("\n");
}

/** Reports rejected rows (already in line order). */
export async function emit(st: ImportState, list: readonly Rejected[]): Promise<void> {
  if (list.length === 0) return;
  const out = st.out;
  for (const r of list) {
    if (out.shown.length < STDERR_REJECT_CAP) out.shown.push(r);
    out.json.rejected({
      line: r.line,
      ...(st.places.sheet === undefined ? {} : { place: st.places.row(r.line) }),
      externalId: r.externalId,
      reasons: r.reasons,
    });
  }
  await out.sink?.write(list.map(out.row));
}

/** Reports rows rejected here and by the service, merged in line order. */
export async function emitMerged(st: ImportState, local: Rejected[], server: Rejected[] = []): Promise<void> {
  if (server.length === 0) return emit(st, local);
  const merged: Rejected[] = [];
  let i = 0;
  let j = 0;
  while (i < local.length || j < server.length) {
    const a = local[i];
    const b = server[j];
    if (b === undefined || (a !== undefined && a.line < b.line)) {
      merged.push(a!);
      i++;
    } else {
      merged.push(b);
      j++;
    }
  }
  await emit(st, merged);
}

/** Reports the rows rejected here that wait for no batch any more. */
export async function emitPending(st: ImportState): Promise<void> {
  const list = st.pendingLocal;
  st.pendingLocal = [];
  await emit(st, list);
}

/** "2 batches (2,000 rows, lines 2-2001) had already been sent and saved", or "no rows were sent". */
export function sentSoFar(st: ImportState): string {
  const { batches, numbers } = st;
  if (batches.length === 0 || st.settings.dryRun) return "no rows were sent";
  const spans: [number, number][] = [];
  let from = 0;
  for (let i = 1; i <= batches.length; i++) {
    if (i < batches.length && numbers[i] === numbers[i - 1]! + 1) continue;
    spans.push([batches[from]!.firstLine, batches[i - 1]!.lastLine]);
    from = i;
  }
  return `${plural(batches.length, "batch", "batches")} (${plural(st.sentRows, "row")}, ${st.places.spans(spans)}) had already been sent and saved`;
}

/** Ends the outputs: the last rejected rows, the rejects file committed, the JSON object closed, the first rejects on stderr. */
export async function finishOutputs(st: ImportState, extra: Record<string, unknown>): Promise<void> {
  const { out, summary, settings: s } = st;
  const io = st.ctx.io;
  out.progress.stop();
  await emitPending(st);
  await out.sink?.commit();
  const footer = st.footer ? { footerLines: st.footer.lines } : {};
  out.json.finish({
    batches: st.batches,
    summary: s.dryRun
      ? { rows: summary.rows, valid: st.valid, rejected: summary.rejected, ...footer }
      : { ...summary, ...footer },
    ...(s.dryRun ? { dryRun: true, sample: out.sample } : {}),
    ...extra,
  });
  for (const w of out.warnings) io.err(w);
  if (out.warned > out.warnings.length)
    io.err(`... and ${fmt(out.warned - out.warnings.length)} more externalIds not in Unicode NFC.`);
  for (const r of out.shown)
    io.err(`${st.places.row(r.line)}${r.externalId ? ` (${r.externalId})` : ""}: ${r.reasons.join("; ")}`);
  if (summary.rejected > out.shown.length) {
    const more = summary.rejected - out.shown.length;
    io.err(
      `... and ${fmt(more)} more, ${out.sink ? `see ${s.rejects}` : io.json ? "see the JSON output" : "use --rejects FILE to get them all"}.`,
    );
  }
}

/** The closing line of a finished import; rejected rows make it a PartialFailure (exit 3). */
export async function reportFinished(st: ImportState): Promise<void> {
  const { summary, settings: s } = st;
  const io = st.ctx.io;
  await finishOutputs(st, { complete: true });
  if (st.footer) io.err(footerNote(st.footer));
  const batches = plural(st.batches.length, "batch", "batches");
  if (s.dryRun) {
    const sample = st.out.sample;
    if (sample.length > 0) {
      io.err(
        `${sample.length === st.valid ? "The" : `The first ${sample.length} of`} ${plural(st.valid, "row")} that would be sent:`,
      );
      for (const line of sampleLines(sample)) io.err(`  ${line}`);
    }
    io.err(
      `Dry run of ${s.file}: ${plural(summary.rows, "row")}, ${fmt(st.valid)} valid and would be sent in ${batches}, ${fmt(summary.rejected)} rejected. Nothing was sent.`,
    );
  } else if (summary.rows === 0) {
    io.err(`${s.file} has a header but no rows; nothing to import.`);
  } else {
    io.err(
      `Imported ${s.file}: ${plural(summary.rows, "row")} in ${batches}: ${fmt(summary.added)} added, ${fmt(summary.updated)} updated, ${fmt(summary.unchanged)} unchanged, ${fmt(summary.rejected)} rejected.`,
    );
  }
  if (summary.rejected > 0) {
    throw new PartialFailure(
      `${fmt(summary.rejected)} of ${plural(summary.rows, "row")} ${s.dryRun ? "would be" : "were"} rejected.`,
      s.rejects
        ? `The rejected rows are in ${s.rejects}; fix them and import again.`
        : io.quiet
          ? "--quiet listed none of them: run again with --rejects FILE to get them all as CSV (with their reasons), or without --quiet to see them here."
          : `Fix the ${st.places.sheet === undefined ? "lines" : "rows"} listed above and import again (--rejects FILE writes them all as CSV).`,
    );
  }
}
