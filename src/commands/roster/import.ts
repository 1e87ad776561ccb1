// roster import FILE: stream a CSV roster, check every row locally with the shared rules, send the
// valid rows in batches to POST /creators/batch and map every outcome back to its file line.
// FILE may be "-" (stdin), /dev/stdin, a named pipe or `<(...)`: the input is read once; when it is
// not a regular file, the checking pass keeps a private copy for the sending pass (src/csv/input.ts).
import { resolve } from "node:path";
import { type BatchCreator, batchCreators } from "../../api/creators.js";
import type { Context } from "../../context.js";
import { checkEncoding } from "../../csv/decode.js";
import { type ColumnMap, describeMapping, loose, REJECTS_COLUMNS } from "../../csv/headers.js";
import { IdIndex } from "../../csv/id-index.js";
import { type InputFile, openInput } from "../../csv/input.js";
import { CsvFileError, type CsvReadOptions, CsvReader, parseDelimiter } from "../../csv/read.js";
import { checkRosterRow, mapColumns, parseColumnFlags } from "../../csv/roster.js";
import { type CsvSink, openCsvSink } from "../../csv/write.js";
import { CancelledError, CliError, PartialFailure, ProtocolError, UsageError } from "../../errors.js";
import { type Progress, startProgress } from "../../io/progress.js";
import { LIMITS } from "../../spec/limits.js";

export interface ImportOptions {
  dryRun?: boolean | undefined;
  batchSize?: number | undefined;
  rejects?: string | undefined;
  clearEmpty?: boolean | undefined;
  column?: string[] | undefined;
  encoding?: string | undefined;
  delimiter?: string | undefined;
  /** Batches in flight at once, 1 to MAX_CONCURRENCY (default 4). */
  concurrency?: number | undefined;
}

export interface Rejected {
  line: number;
  externalId: string;
  reasons: string[];
  /** The row's cells as read (written to the rejects file, not to the JSON output). */
  cells: string[];
}

export interface BatchReport {
  firstLine: number;
  lastLine: number;
  rows: number;
  added?: number;
  updated?: number;
  unchanged?: number;
  rejected?: number;
  /** Sent again after an uncertain 500: rows the lost attempt saved are reported unchanged. */
  repeated?: boolean;
}

/** A checked row waiting in a batch. */
interface SentRow {
  line: number;
  item: BatchCreator;
  cells: string[];
}

/** A batch sent and not yet accounted for; `done` never rejects (the outcome lands in res/error). */
interface InFlight {
  number: number;
  rows: SentRow[];
  report: BatchReport;
  /** Rows rejected locally before and among this batch's rows, reported with its answer. */
  locals: Rejected[];
  repeated: boolean;
  /** A 429 was answered to this batch. */
  slowed: boolean;
  done: Promise<void>;
  res?: Awaited<ReturnType<typeof batchCreators>>;
  error?: unknown;
}

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;
const STDERR_REJECT_CAP = 20;
/** Cells kept with a sent row only for the rejects file. */
const NO_CELLS: string[] = [];
const LOCAL_REJECT_CAP = 1000;
const fmt = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, one: string, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;

/** Writes the --json result as it goes, so rejected rows are never all held in memory. */
class JsonOut {
  private started = false;
  constructor(private readonly write: ((s: string) => void) | undefined) {}
  private start() {
    if (!this.started) {
      this.started = true;
      this.write?.('{"rejected":[');
      return "";
    }
    return ",";
  }
  rejected(r: Omit<Rejected, "cells">) {
    if (!this.write) return;
    this.write(this.start() + JSON.stringify(r));
  }
  finish(rest: Record<string, unknown>) {
    if (!this.write) return;
    this.start();
    const tail = JSON.stringify(rest);
    this.write(`]${tail === "{}" ? "" : `,${tail.slice(1, -1)}`}}\n`);
  }
}

/** Opens one reading pass: reads the header and maps the columns. */
async function openRoster(
  input: InputFile,
  read: CsvReadOptions,
  flags: ReturnType<typeof parseColumnFlags>,
) {
  const reader = new CsvReader(read);
  const it = reader.records(input.bytes());
  try {
    const first = await it.next();
    if (first.done) {
      throw new CsvFileError(
        `${input.name} is empty: it needs a header row naming the columns (externalId,name,email,handle,active).`,
      );
    }
    const map = mapColumns(input.name, first.value.cells, flags, { delimiter: reader.facts.delimiter });
    return { it, map, reader };
  } catch (err) {
    await it.return(undefined);
    throw err;
  }
}

/** "Reading stdin as UTF-16LE (byte order mark), tab-delimited." when either is not the plain default. */
function readingNote(name: string, reader: CsvReader): string | undefined {
  const f = reader.facts;
  if (f.encoding === "utf-8" && f.delimiter === ",") return undefined;
  const enc =
    f.source === "bom"
      ? `${f.encoding.toUpperCase()} (byte order mark)`
      : f.source === "flag"
        ? `${f.encoding} (--encoding)`
        : "UTF-8";
  const delim = f.delimiter === "\t" ? "tab" : `"${f.delimiter}"`;
  return `Reading ${name} as ${enc}, fields separated by ${delim}${f.delimiterSource === "flag" ? " (--delimiter)" : ""}.`;
}

/** The rejects file: line and reasons, then the input's own columns in its order (a rejects file's line and reasons columns left out). */
function rejectsLayout(map: ColumnMap) {
  const skip = (h: string) => (REJECTS_COLUMNS as readonly string[]).includes(loose(h));
  const keep = map.headers.map((h, i) => (skip(h) ? -1 : i)).filter((i) => i >= 0);
  const width = map.headers.length;
  return {
    header: ["line", "reasons", ...keep.map((i) => map.headers[i]!)],
    row: (r: Rejected) => [
      r.line,
      r.reasons.join("; "),
      ...keep.filter((i) => i < r.cells.length).map((i) => r.cells[i]!),
      ...r.cells.slice(width),
    ],
  };
}

export async function rosterImportRun(file: string, opts: ImportOptions, ctx: Context): Promise<void> {
  const io = ctx.io;
  const flags = parseColumnFlags(opts.column ?? []);
  const batchSize = opts.batchSize ?? LIMITS.creatorBatchMax;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > LIMITS.creatorBatchMax)
    throw new UsageError(`--batch-size must be a whole number from 1 to ${LIMITS.creatorBatchMax}.`);
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)
    throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}.`);
  const encoding = opts.encoding === undefined ? undefined : checkEncoding(opts.encoding);
  const delimiter = parseDelimiter(opts.delimiter);
  const dryRun = Boolean(opts.dryRun);
  const clearEmpty = Boolean(opts.clearEmpty);
  if (opts.rejects && file !== "-" && resolve(opts.rejects) === resolve(file))
    throw new UsageError("--rejects names the input file itself; choose another file.");

  // Who to talk to, before any input is read or a file created (--dry-run sends nothing, so needs no
  // one): without credentials and without a terminal this refuses here (exit 4), touching nothing.
  if (!dryRun) await ctx.target();

  if (file === "-" && io.stdinIsTTY)
    io.err("Reading the roster from the terminal: paste it, then press Ctrl-D on a new line.");
  const input = await openInput(file, io.stdin, { passes: dryRun ? 1 : 2 });
  try {
    await importInput(
      input,
      { ...opts, encoding, delimiter, batchSize, concurrency, dryRun, clearEmpty },
      flags,
      ctx,
    );
  } finally {
    await input.close();
  }
}

async function importInput(
  input: InputFile,
  opts: ImportOptions & { batchSize: number; concurrency: number; dryRun: boolean; clearEmpty: boolean },
  flags: ReturnType<typeof parseColumnFlags>,
  ctx: Context,
): Promise<void> {
  const io = ctx.io;
  const { batchSize, dryRun, clearEmpty } = opts;
  const file = input.name;
  const read: CsvReadOptions = { name: file, encoding: opts.encoding, delimiter: opts.delimiter };

  // Pass 1 (not for --dry-run, which sends nothing): prove the whole input is readable text and CSV
  // with an externalId column before any request, and count its rows for the progress bar.
  let total = 0;
  if (!dryRun) {
    try {
      const { it } = await openRoster(input, read, flags);
      for await (const _ of it) {
        if (ctx.signal.aborted) {
          await it.return(undefined);
          throw new CancelledError(
            `Interrupted while checking ${file} (${plural(total, "row")} read): nothing was sent.`,
          );
        }
        total++;
      }
    } catch (err) {
      if (err instanceof CsvFileError) throw err.withNote("Nothing was sent.");
      throw err;
    }
  }

  const { it, map, reader } = await openRoster(input, { ...read, note: (l) => io.err(l) }, flags);
  const note = readingNote(file, reader);
  if (note) io.err(note);
  for (const line of describeMapping(map)) io.err(line);
  const layout = rejectsLayout(map);

  let sink: CsvSink | undefined;
  try {
    sink = opts.rejects ? await openCsvSink(opts.rejects, layout.header, io.stdout) : undefined;
  } catch (err) {
    await it.return(undefined);
    throw err;
  }
  const json = new JsonOut(io.json ? (s) => io.out(s) : undefined);
  const progress: Progress = dryRun
    ? { update() {}, stop() {} }
    : await startProgress(io, "Importing", total);

  const summary = { rows: 0, added: 0, updated: 0, unchanged: 0, rejected: 0 };
  let valid = 0;
  const batches: BatchReport[] = [];
  /** The number (from 1, in file order) of each saved batch, parallel to `batches`. */
  const numbers: number[] = [];
  const shown: Rejected[] = [];
  const seen = new IdIndex(total);
  let batch: SentRow[] = [];
  let sentRows = 0;
  let lastLine = 0;
  let interrupted = false;

  // Up to `limit` batches in flight; their outcomes are taken in file order (the oldest first), so
  // rejected rows and batch reports keep the file's order. A 429 halves the limit (once per wave of
  // requests); it grows back by one after that many calm answers in a row.
  const inflight: InFlight[] = [];
  let limit = opts.concurrency;
  let calm = 0;
  let numbered = 0;
  let halvedBefore = 0;

  // Rejected rows are reported in line order: rows rejected locally wait until the batches holding
  // the rows around them have their answers (at most LOCAL_REJECT_CAP of them are held).
  let pendingLocal: Rejected[] = [];
  const emit = async (list: readonly Rejected[]) => {
    if (list.length === 0) return;
    for (const r of list) {
      if (shown.length < STDERR_REJECT_CAP) shown.push(r);
      json.rejected({ line: r.line, externalId: r.externalId, reasons: r.reasons });
    }
    await sink?.write(list.map(layout.row));
  };
  const emitMerged = async (local: Rejected[], server: Rejected[] = []) => {
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
    await emit(merged);
  };
  const emitPending = async () => {
    const list = pendingLocal;
    pendingLocal = [];
    await emitMerged(list);
  };
  const rejectLocally = async (r: Rejected) => {
    summary.rejected++;
    pendingLocal.push(r);
    if (pendingLocal.length >= LOCAL_REJECT_CAP) {
      await takeAll();
      await emitPending();
    } else if (batch.length === 0 && inflight.length === 0) await emitPending();
  };

  /** Counts one answered batch and reports its rejected rows (with the local ones around them). */
  const account = async (e: InFlight, res: Awaited<ReturnType<typeof batchCreators>>) => {
    const rows = e.rows;
    if (res.rows.length !== rows.length) {
      throw new ProtocolError(
        `The service answered a batch of ${rows.length} creators with ${res.rows.length} row outcomes.`,
      );
    }
    const counts = { added: 0, updated: 0, unchanged: 0, rejected: 0 };
    const serverRejected: Rejected[] = [];
    for (const out of [...res.rows].sort((a, b) => a.index - b.index)) {
      const sent = rows[out.index];
      if (!sent)
        throw new ProtocolError(`The service answered a batch with an unknown row index ${out.index}.`);
      if (out.outcome === "rejected" || out.reasons.length > 0) {
        counts.rejected++;
        serverRejected.push({
          line: sent.line,
          externalId: sent.item.externalId,
          reasons: out.reasons,
          cells: sent.cells,
        });
      } else if (out.outcome === "added" || out.outcome === "unchanged") {
        counts[out.outcome]++;
      } else {
        counts.updated++; // "updated", or an outcome this version does not know: accepted either way
      }
    }
    summary.added += counts.added;
    summary.updated += counts.updated;
    summary.unchanged += counts.unchanged;
    summary.rejected += counts.rejected;
    sentRows += rows.length;
    await emitMerged(e.locals, serverRejected);
    batches.push({ ...e.report, ...counts, ...(e.repeated ? { repeated: true } : {}) });
    numbers.push(e.number);
    if (e.repeated) {
      io.err(
        `Batch ${e.number} (lines ${e.report.firstLine}-${e.report.lastLine}) was sent again after an uncertain 500 answer; ` +
          'rows the lost attempt had saved are counted as "unchanged".',
      );
    }
  };

  const range = (e: InFlight) => `batch ${e.number} (lines ${e.report.firstLine}-${e.report.lastLine})`;

  /**
   * The oldest batch in flight failed: wait for the others, count those that were saved, report
   * the rest's local rejects in order, and say what happened.
   */
  const failAt = async (head: InFlight): Promise<never> => {
    await Promise.all(inflight.map((e) => e.done));
    const all = inflight.splice(0);
    const failed: InFlight[] = [];
    for (const e of all) {
      if (e.res) await account(e, e.res);
      else {
        failed.push(e);
        await emit(e.locals);
      }
    }
    progress.stop();
    const err = head.error;
    if (err instanceof CancelledError) {
      // Ctrl-C while requests were in flight: the outcome of those without an answer is unknown.
      const uncertain = failed.filter((e) => e.error instanceof CancelledError);
      const one = uncertain.length === 1 ? uncertain[0]! : undefined;
      const which = one
        ? `${range(one)} was being sent; that batch may or may not have been saved`
        : `${uncertain.length} batches were being sent (${uncertain.map((e) => `batch ${e.number}, lines ${e.report.firstLine}-${e.report.lastLine}`).join("; ")}); those may or may not have been saved`;
      const savedAfter = all.some((e) => e.res !== undefined && e.number > head.number);
      const others = one && !savedAfter ? "Before it" : one ? "Besides it" : "Besides those";
      throw new CancelledError(
        `Interrupted while ${which}. ${others}, ${sentSoFar()}.`,
        'Run the same import again to finish: rows already saved come back "unchanged".',
      );
    }
    io.err(
      `Stopped at ${range(head)}: ${sentSoFar()}. ` +
        (all.length === 1
          ? "Rows from that batch on were not imported; run the same import again (saved rows come back unchanged)."
          : "Other rows were not imported; run the same import again (saved rows come back unchanged)."),
    );
    throw err;
  };

  /** Takes the oldest batch's answer (waiting for it). */
  const takeHead = async () => {
    const head = inflight[0]!;
    await head.done;
    if (!head.res) return failAt(head);
    inflight.shift();
    await account(head, head.res);
    if (!head.slowed && ++calm >= limit && limit < opts.concurrency) {
      limit++;
      calm = 0;
    }
  };
  const takeAll = async () => {
    while (inflight.length) await takeHead();
  };

  const flush = async () => {
    if (batch.length === 0) {
      await takeAll();
      return emitPending();
    }
    if (!dryRun) {
      while (inflight.length >= limit) await takeHead();
      if (ctx.signal.aborted) {
        interrupted = true;
        return;
      }
    }
    const rows = batch;
    batch = [];
    const locals = pendingLocal;
    pendingLocal = [];
    const report: BatchReport = {
      firstLine: rows[0]!.line,
      lastLine: rows[rows.length - 1]!.line,
      rows: rows.length,
    };
    if (dryRun) {
      valid += rows.length;
      batches.push(report);
      return emitMerged(locals);
    }
    const api = await ctx.api();
    const e: InFlight = {
      number: ++numbered,
      rows,
      report,
      locals,
      repeated: false,
      slowed: false,
      done: Promise.resolve(),
    };
    e.done = batchCreators(
      api,
      rows.map((r) => r.item),
      {
        onRepeat: () => {
          e.repeated = true;
        },
        onRetry: ({ status }) => {
          if (status !== 429) return;
          e.slowed = true;
          calm = 0;
          if (e.number > halvedBefore) {
            limit = Math.max(1, limit >> 1);
            halvedBefore = numbered;
          }
        },
      },
    ).then(
      (res) => {
        e.res = res;
      },
      (err: unknown) => {
        e.error = err;
      },
    );
    inflight.push(e);
    // --concurrency 1: one batch at a time, its answer taken before the next row is read (as before).
    if (opts.concurrency === 1) await takeHead();
  };

  const sentSoFar = () => {
    if (batches.length === 0 || dryRun) return "no rows were sent";
    const spans: string[] = [];
    let from = 0;
    for (let i = 1; i <= batches.length; i++) {
      if (i < batches.length && numbers[i] === numbers[i - 1]! + 1) continue;
      spans.push(`${batches[from]!.firstLine}-${batches[i - 1]!.lastLine}`);
      from = i;
    }
    return `${plural(batches.length, "batch", "batches")} (${plural(sentRows, "row")}, lines ${spans.join(", ")}) had already been sent and saved`;
  };

  const finishOutputs = async (extra: Record<string, unknown>) => {
    progress.stop();
    await emitPending();
    await sink?.commit();
    json.finish({
      batches,
      summary: dryRun ? { rows: summary.rows, valid, rejected: summary.rejected } : summary,
      ...(dryRun ? { dryRun: true } : {}),
      ...extra,
    });
    for (const r of shown)
      io.err(`line ${r.line}${r.externalId ? ` (${r.externalId})` : ""}: ${r.reasons.join("; ")}`);
    if (summary.rejected > shown.length) {
      const more = summary.rejected - shown.length;
      io.err(
        `... and ${fmt(more)} more, ${sink ? `see ${opts.rejects}` : io.json ? "see the JSON output" : "use --rejects FILE to get them all"}.`,
      );
    }
  };

  try {
    for await (const rec of it) {
      if (ctx.signal.aborted) {
        interrupted = true;
        break;
      }
      summary.rows++;
      lastLine = rec.line;
      const check = checkRosterRow(rec.cells, map, { clearEmpty });
      if (check.externalId !== "") {
        const firstSeen = seen.firstLineOrAdd(check.externalId, rec.line);
        if (firstSeen !== undefined) check.reasons.push(`externalId: also on line ${firstSeen}`);
      }
      if (check.reasons.length || !check.item) {
        await rejectLocally({
          line: rec.line,
          externalId: check.externalId,
          reasons: check.reasons,
          cells: rec.cells,
        });
      } else {
        batch.push({ line: rec.line, item: check.item, cells: sink ? rec.cells : NO_CELLS });
        if (batch.length >= batchSize) {
          await flush();
          if (interrupted) break;
        }
      }
      progress.update(summary.rows);
    }
    if (!interrupted && ctx.signal.aborted) interrupted = true;
    if (!interrupted) await flush();
    if (!interrupted) await takeAll();
    // Interrupted: the batches still in flight end (cancelled); any without an answer is reported.
    if (interrupted) while (inflight.length) await takeHead();
  } catch (err) {
    await it.return(undefined);
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof CsvFileError) {
      await takeAll().catch(() => {});
      await finishOutputs({ complete: false, stoppedAt: { line: err.line ?? null, reason: err.headline } });
      throw err.withNote(`The import stopped there: ${sentSoFar()}.`);
    }
    if (!(err instanceof CliError)) {
      progress.stop();
      await sink?.abort();
      throw err;
    }
    await finishOutputs({
      complete: false,
      ...(err instanceof CancelledError ? { interrupted: true } : { error: message }),
    });
    throw err;
  }

  if (interrupted) {
    const unsent = batch.length;
    await finishOutputs({ complete: false, interrupted: true });
    throw new CancelledError(
      `Interrupted after line ${lastLine}: ${sentSoFar()}; ${unsent ? `${plural(unsent, "checked row")} and ` : ""}the rest of the file were not sent.`,
      'Run the same import again to finish: rows already saved come back "unchanged".',
    );
  }

  await finishOutputs({ complete: true });
  if (dryRun) {
    io.err(
      `Dry run of ${file}: ${plural(summary.rows, "row")}, ${fmt(valid)} valid and would be sent in ${plural(batches.length, "batch", "batches")}, ${fmt(summary.rejected)} rejected. Nothing was sent.`,
    );
  } else if (summary.rows === 0) {
    io.err(`${file} has a header but no rows; nothing to import.`);
  } else {
    io.err(
      `Imported ${file}: ${plural(summary.rows, "row")} in ${plural(batches.length, "batch", "batches")}: ${fmt(summary.added)} added, ${fmt(summary.updated)} updated, ${fmt(summary.unchanged)} unchanged, ${fmt(summary.rejected)} rejected.`,
    );
  }
  if (summary.rejected > 0) {
    throw new PartialFailure(
      `${fmt(summary.rejected)} of ${plural(summary.rows, "row")} ${dryRun ? "would be" : "were"} rejected.`,
      opts.rejects
        ? `The rejected rows are in ${opts.rejects}; fix them and import again.`
        : "Fix the lines listed above and import again (--rejects FILE writes them all as CSV).",
    );
  }
}
