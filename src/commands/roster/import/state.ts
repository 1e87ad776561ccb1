// The one state of a roster import, shared by its stages (read → check → batch → send → report):
// what the run was asked to do, what it has counted so far, the rows waiting for a batch, the
// batches in flight and the outputs being written. Each stage is a module of functions over it.
import { BATCH_BODY_HEAD, BATCH_BODY_TAIL } from "../../../api/creators.js";
import type { Context } from "../../../context.js";
import type { Footer } from "../../../csv/footer.js";
import type { ColumnMap } from "../../../csv/headers.js";
import type { IdIndex } from "../../../csv/id-index.js";
import type { Places } from "../../../csv/place.js";
import type { CsvSink } from "../../../csv/write.js";
import type { Progress } from "../../../io/progress.js";

/** The import's flags, checked. */
export interface ImportSettings {
  /** The input as named in messages (the path, or "stdin"). */
  file: string;
  batchSize: number;
  /** Batches in flight at once (--concurrency). */
  concurrency: number;
  dryRun: boolean;
  clearEmpty: boolean;
  /** --rejects FILE. */
  rejects?: string | undefined;
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

/** Parts gathered before they are written into the body's buffer (about 100 rows). */
const SPILL_PARTS = 1024;

/**
 * Checked rows gathered for one batch, without an object per row: their lines, externalIds and (for
 * the rejects file only) cells, and the request body. The items' JSON text is gathered in parts
 * (`json`, with a comma between items) and written into the body's buffer every hundred rows or so,
 * so that the cells it is made of die young; the buffer comes from `pool` (the send window's buffers,
 * given back once a batch is answered).
 */
export class RowBatch {
  readonly lines: number[] = [];
  readonly ids: string[] = [];
  /** Each row's cells when a rejects file is written (else empty). */
  readonly cells: string[][] = [];
  /** The items' JSON text not yet written, in parts. */
  readonly json: string[] = [];
  private buf: Buffer | undefined;
  private len = 0;
  constructor(private readonly pool: Buffer[]) {}
  get length(): number {
    return this.lines.length;
  }
  /** Writes the gathered parts into the body's buffer when there are many. */
  spillSometimes(): void {
    if (this.json.length >= SPILL_PARTS) this.spill();
  }
  private spill(): void {
    const text = this.json.join("");
    this.json.length = 0;
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = this.len + text.length * 3 + BATCH_BODY_TAIL.length;
    let buf = this.buf;
    if (!buf || buf.length < room) {
      const next = this.pool.pop();
      buf = next && next.length >= room ? next : Buffer.allocUnsafeSlow(Math.max(room * 2, 256 * 1024));
      if (this.buf) this.buf.copy(buf, 0, 0, this.len);
      else this.len = buf.write(BATCH_BODY_HEAD, 0, "latin1");
      this.buf = buf;
    }
    this.len += buf.write(text, this.len);
  }
  /** The request body (`batchBody`'s bytes), and the buffer that holds it (for the pool, once answered). */
  body(): { buf: Buffer; body: Buffer } {
    this.spill();
    const buf = this.buf!;
    this.len += buf.write(BATCH_BODY_TAIL, this.len, "latin1");
    return { buf, body: buf.subarray(0, this.len) };
  }
  /** A batch that is not sent (--dry-run): its buffer goes back to the pool. */
  release(): void {
    if (this.buf) this.pool.push(this.buf);
    this.buf = undefined;
    this.json.length = 0;
  }
}

/** A batch's answer, reduced (send.ts reduceAnswer). */
export interface BatchAnswer {
  /** How many row outcomes the answer held. */
  outcomes: number;
  counts: { added: number; updated: number; unchanged: number; rejected: number };
  /** The rows not accepted, by index. */
  rejected: { index: number; reasons: string[] }[];
  /** The first row index (in index order) outside the batch sent, if any. */
  badIndex: number | undefined;
}

/** A batch sent and not yet accounted for; `done` never rejects (the outcome lands in res/error). */
export interface InFlight {
  number: number;
  rows: RowBatch;
  report: BatchReport;
  /** Rows rejected locally before and among this batch's rows, reported with its answer. */
  locals: Rejected[];
  repeated: boolean;
  /** A 429 was answered to this batch. */
  slowed: boolean;
  done: Promise<void>;
  res?: BatchAnswer;
  error?: unknown;
}

/**
 * Up to `limit` batches in flight; their outcomes are taken in file order (the oldest first). A 429
 * halves the limit (once per wave of requests); it grows back by one after that many calm answers.
 */
export interface SendWindow {
  inflight: InFlight[];
  limit: number;
  calm: number;
  /** Batches numbered so far (from 1, in file order). */
  numbered: number;
  /** A 429 to a batch numbered after this halves the limit again. */
  halvedBefore: number;
  /** Buffers for request bodies, free to be written again (send.ts bodyBytes). */
  bodies: Buffer[];
}

/** Where the outcome goes: --json on stdout, the rejects file, the progress bar, stderr lines. */
export interface Outputs {
  json: JsonOut;
  sink: CsvSink | undefined;
  /** A rejected row as a rejects-file row. */
  row: (r: Rejected) => (string | number)[];
  progress: Progress;
  /** The first rejected rows, listed on stderr at the end. */
  shown: Rejected[];
  /** The first warnings (an externalId not in Unicode NFC, sent as it is), listed on stderr at the end. */
  warnings: string[];
  /** How many warnings there were. */
  warned: number;
  /** --dry-run: the first items of the request bodies that would be sent (report.ts keepSample). */
  sample: Record<string, unknown>[];
}

export interface ImportState {
  readonly ctx: Context;
  readonly settings: ImportSettings;
  readonly map: ColumnMap;
  /** Where rows and cells are, for messages: "line 7" (CSV), "Sheet1!A7:E7" (a workbook). */
  readonly places: Places;
  /** externalIds seen (in Unicode NFC), with their first line. */
  readonly seen: IdIndex;
  /** The ids first seen in a form other than NFC, by their NFC form (rare: to tell an exact repeat). */
  readonly notNfcFirst: Map<string, string>;
  readonly summary: { rows: number; added: number; updated: number; unchanged: number; rejected: number };
  /** --dry-run: rows that passed the checks. */
  valid: number;
  /** Reports of the batches saved (or, with --dry-run, made), in the order their answers were taken. */
  readonly batches: BatchReport[];
  /** The number (from 1, in file order) of each saved batch, parallel to `batches`. */
  readonly numbers: number[];
  /** Rows in the batches saved. */
  sentRows: number;
  /** Line of the last row read. */
  lastLine: number;
  /** Ctrl-C was seen between rows: stop reading, finish what is in flight. */
  interrupted: boolean;
  /** Checked rows waiting for the next batch. */
  batch: RowBatch;
  /** Rows rejected locally, held until the batches around them are answered (line order). */
  pendingLocal: Rejected[];
  readonly window: SendWindow;
  readonly out: Outputs;
  /** A report's footer skipped at the end of the file (src/csv/footer.ts), once the file was read. */
  footer?: Footer | undefined;
}

/** Writes the --json result as it goes, so rejected rows are never all held in memory. */
export class JsonOut {
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

export { fmt, plural } from "../../../io/words.js";
