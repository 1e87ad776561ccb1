// roster import FILE: stream a CSV roster, check every row locally with the shared rules, send the
// valid rows in batches to POST /creators/batch and map every outcome back to its file line.
// FILE may be "-" (stdin), /dev/stdin, a named pipe or `<(...)`: the input is read once; when it is
// not a regular file, the checking pass keeps a private copy for the sending pass (src/csv/input.ts).
//
// The import runs as stages over one ImportState (import/state.ts): read (import/read.ts) → check
// (import/check.ts) → batch (import/batch.ts) → send (import/send.ts) → report (import/report.ts).
// Before the first of them, a file with no name column that would create creators is stopped
// (import/names.ts): the service would reject every new creator.
import { resolve } from "node:path";
import type { Context } from "../../context.js";
import { checkEncoding } from "../../csv/decode.js";
import { describeMapping } from "../../csv/headers.js";
import { IdIndex } from "../../csv/id-index.js";
import { DEFAULT_MAX_INPUT_BYTES, type InputFile, openInput, parseByteSize } from "../../csv/input.js";
import { CsvFileError, parseDelimiter, parseQuote } from "../../csv/read.js";
import type { ReadOptions } from "../../csv/records.js";
import { parseColumnFlags } from "../../csv/roster.js";
import { CancelledError, CliError, UsageError } from "../../errors.js";
import { startByteCount } from "../../io/progress.js";
import { LIMITS } from "../../spec/limits.js";
import { flush, rejectLocally, rowAdded } from "./import/batch.js";
import { checkRecord } from "./import/check.js";
import { checkNameColumn } from "./import/names.js";
import {
  checkWholeInput,
  type ColumnFlags,
  openRoster,
  type RosterSource,
  readingNote,
} from "./import/read.js";
import { finishOutputs, openOutputs, reportFinished, sentSoFar } from "./import/report.js";
import { takeAll, takeHead } from "./import/send.js";
import { type ImportSettings, type ImportState, plural, RowBatch } from "./import/state.js";

export type { BatchReport, Rejected } from "./import/state.js";

export interface ImportOptions {
  dryRun?: boolean | undefined;
  batchSize?: number | undefined;
  rejects?: string | undefined;
  clearEmpty?: boolean | undefined;
  column?: string[] | undefined;
  encoding?: string | undefined;
  delimiter?: string | undefined;
  /** --quote double|none: none reads `"` as ordinary text. */
  quote?: string | undefined;
  /** Batches in flight at once, 1 to MAX_CONCURRENCY (default 4). */
  concurrency?: number | undefined;
  /** --max-input-size: the most read from a pipe or stdin ("2GB", "500MB"; default 2 GB). */
  maxInputSize?: string | undefined;
  /** --sheet NAME|N: the sheet of an Excel workbook to read (default: the first). */
  sheet?: string | undefined;
}

/** `roster import FILE [flags]`: the FILE positional ("-" for stdin) and the flags. */
export interface RosterImportOptions extends ImportOptions {
  file: string;
}

const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 16;

/** How the input is read: the file name, --encoding, --delimiter (checked), the --column map, the size limit. */
interface ReadSettings {
  read: ReadOptions;
  flags: ColumnFlags;
  maxBytes: number;
}

/** --max-input-size, checked. */
function maxInputBytes(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_INPUT_BYTES;
  const n = parseByteSize(text);
  if (n === undefined)
    throw new UsageError(
      `--max-input-size must be a size such as 2GB, 500MB or 4GiB, not "${text}".`,
      "KB, MB, GB and TB are powers of 1,000; KiB, MiB, GiB and TiB powers of 1,024; a plain number is bytes.",
    );
  return n;
}

/** --sheet, checked: a name or a number from 1. */
function sheetFlag(sheet: string | undefined): string | undefined {
  if (sheet !== undefined && sheet.trim() === "")
    throw new UsageError(
      "--sheet needs a sheet name or a number from 1, e.g. --sheet Creators or --sheet 2.",
    );
  return sheet;
}

/** Checks the flags (usage errors before anything is read or sent). */
function settle(o: RosterImportOptions): { settings: ImportSettings; how: ReadSettings } {
  const flags = parseColumnFlags(o.column ?? []);
  const batchSize = o.batchSize ?? LIMITS.creatorBatchMax;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > LIMITS.creatorBatchMax)
    throw new UsageError(`--batch-size must be a whole number from 1 to ${LIMITS.creatorBatchMax}.`);
  const concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)
    throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}.`);
  const encoding = o.encoding === undefined ? undefined : checkEncoding(o.encoding);
  const delimiter = parseDelimiter(o.delimiter);
  const quote = parseQuote(o.quote);
  if (o.rejects && o.file !== "-" && resolve(o.rejects) === resolve(o.file))
    throw new UsageError("--rejects names the input file itself; choose another file.");
  const name = o.file === "-" ? "stdin" : o.file;
  const maxBytes = maxInputBytes(o.maxInputSize);
  return {
    settings: {
      file: name,
      batchSize,
      concurrency,
      dryRun: Boolean(o.dryRun),
      clearEmpty: Boolean(o.clearEmpty),
      rejects: o.rejects,
    },
    how: { read: { name, encoding, delimiter, quote, sheet: sheetFlag(o.sheet) }, flags, maxBytes },
  };
}

export async function rosterImportRun(opts: RosterImportOptions, ctx: Context): Promise<void> {
  const io = ctx.io;
  const { settings, how } = settle(opts);

  // Who to talk to, before any input is read or a file created (--dry-run sends nothing, so needs no
  // one): without credentials and without a terminal this refuses here (exit 4), touching nothing.
  if (!settings.dryRun) await ctx.target();

  if (opts.file === "-" && io.stdinIsTTY)
    io.err("Reading the roster from the terminal: paste it, then press Ctrl-D on a new line.");
  // A pipe is read to an end nobody knows: a terminal sees the bytes read so far (the status line).
  let reading: ReturnType<typeof startByteCount> | undefined;
  const input = await openInput(opts.file, io.stdin, {
    passes: settings.dryRun ? 1 : 2,
    maxBytes: how.maxBytes,
    limitFlag: "--max-input-size",
    onRead(bytes, done) {
      reading ??= startByteCount(io, `Reading ${settings.file}`);
      if (done) reading.stop();
      else reading.update(bytes);
    },
  });
  try {
    await importInput(input, settings, how, ctx);
  } finally {
    reading?.stop();
    await input.close();
  }
}

/** read → check → batch → send → report, over one ImportState. */
async function importInput(input: InputFile, s: ImportSettings, how: ReadSettings, ctx: Context) {
  const io = ctx.io;
  const total = s.dryRun ? 0 : await checkWholeInput(input, how.read, how.flags, ctx.signal);
  let src = await openRoster(input, { ...how.read, note: (l) => io.err(l) }, how.flags);
  const note = readingNote(s.file, src.records);
  if (note) io.err(note);
  for (const line of describeMapping(src.map)) io.err(line);
  let st: ImportState;
  try {
    src = await checkNameColumn(ctx, s, src);
    st = await startImport(ctx, s, src, total);
  } catch (err) {
    await src.close();
    throw err;
  }
  try {
    await importRows(st, src);
  } catch (err) {
    await src.close();
    return stopped(st, err);
  }
  if (st.interrupted) return interrupted(st);
  await reportFinished(st);
}

async function startImport(ctx: Context, s: ImportSettings, src: RosterSource, total: number) {
  const out = await openOutputs(ctx, s, src, total);
  const bodies: Buffer[] = [];
  const st: ImportState = {
    ctx,
    settings: s,
    map: src.map,
    places: src.places,
    seen: new IdIndex(total),
    notNfcFirst: new Map(),
    summary: { rows: 0, added: 0, updated: 0, unchanged: 0, rejected: 0 },
    valid: 0,
    batches: [],
    numbers: [],
    sentRows: 0,
    lastLine: 0,
    interrupted: false,
    batch: new RowBatch(bodies),
    pendingLocal: [],
    window: { inflight: [], limit: s.concurrency, calm: 0, numbered: 0, halvedBefore: 0, bodies },
    out,
  };
  return st;
}

/** Reads, checks and batches every row; sends the last batch and takes every answer. */
async function importRows(st: ImportState, src: RosterSource): Promise<void> {
  const signal = st.ctx.signal;
  const progress = st.out.progress;
  reading: for await (const block of src.blocks) {
    for (const rec of block) {
      if (signal.aborted) {
        st.interrupted = true;
        break reading;
      }
      st.summary.rows++;
      st.lastLine = rec.line;
      const rejected = checkRecord(st, rec);
      const wait = rejected ? rejectLocally(st, rejected) : rowAdded(st);
      if (wait) {
        await wait;
        if (st.interrupted) break reading;
      }
      progress.update(st.summary.rows);
    }
  }
  if (!st.interrupted && signal.aborted) st.interrupted = true;
  st.footer = src.records.csv?.footer;
  if (!st.interrupted) await flush(st);
  if (!st.interrupted) await takeAll(st);
  // Interrupted: the batches still in flight end (cancelled); any without an answer is reported.
  if (st.interrupted) while (st.window.inflight.length) await takeHead(st);
}

/** The import stopped on an error: report what was done, then rethrow it (with what was saved). */
async function stopped(st: ImportState, err: unknown): Promise<never> {
  if (err instanceof CsvFileError) {
    await takeAll(st).catch(() => {});
    await finishOutputs(st, { complete: false, stoppedAt: { line: err.line ?? null, reason: err.headline } });
    throw err.withNote(`The import stopped there: ${sentSoFar(st)}.`);
  }
  if (!(err instanceof CliError)) {
    st.out.progress.stop();
    await st.out.sink?.abort();
    throw err;
  }
  const message = err instanceof Error ? err.message : String(err);
  await finishOutputs(st, {
    complete: false,
    ...(err instanceof CancelledError ? { interrupted: true } : { error: message }),
  });
  throw err;
}

/** Ctrl-C between rows: the outputs are finished and the error says what was saved. */
async function interrupted(st: ImportState): Promise<never> {
  const unsent = st.batch.length;
  await finishOutputs(st, { complete: false, interrupted: true });
  throw new CancelledError(
    `Interrupted after ${st.places.row(st.lastLine)}: ${sentSoFar(st)}; ${unsent ? `${plural(unsent, "checked row")} and ` : ""}the rest of the file were not sent.`,
    'Run the same import again to finish: rows already saved come back "unchanged".',
  );
}
