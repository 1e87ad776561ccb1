// xlsx workbooks for exports and reports, written by exceljs's streaming WorkbookWriter (loaded here,
// lazily: only a command asked for a workbook imports this module). Identifiers are text cells
// (leading zeros kept, formatted "@" so an edit keeps them text), timestamps are date cells, counts
// and money are numbers; the header row is bold and frozen. Memory stays flat: rows are committed as
// they are written and the writer waits whenever the zip compressor falls behind (exceljs itself
// applies no backpressure). Past Excel's sheet limit (1,048,576 rows) the rows continue on a new
// sheet with the header repeated. The file is written under a temporary name, fsynced and renamed
// into place on commit: a crash or an abort never leaves a partial workbook under the real name.
import { once } from "node:events";
import { stat } from "node:fs/promises";
import type ExcelJSModule from "exceljs";
import type { Cell, CsvSink } from "../csv/write.js";
import { UsageError } from "../errors.js";
import { fileWriteError, openTempOutput, type TempOutput } from "./private-file.js";
import type { Column, ColumnKind } from "./columns.js";

/** Excel's rows per sheet, the header row included. */
export const EXCEL_MAX_ROWS = 1_048_576;

/** Zip input buffered beyond this many bytes makes the writer wait for the compressor. */
const BACKLOG_BYTES = 1 << 20;

export interface XlsxSinkOptions {
  /** Sheet name; continuation sheets are "NAME (2)", "NAME (3)", ... */
  sheetName: string;
  /** Data rows per sheet before the next sheet starts (default: Excel's limit minus the header). */
  maxRowsPerSheet?: number | undefined;
  /** Refuse (exit 2) when the file exists, instead of replacing it. */
  refuseExisting?: { hint: string } | undefined;
}

export interface XlsxSink extends CsvSink {
  readonly path: string;
  /** Sheets written so far. */
  readonly sheets: number;
  /** Data rows written so far. */
  readonly rows: number;
  /** Whether the writer found exceljs's zip input to wait on (false would mean memory is not bounded). */
  readonly backpressure: boolean;
}

const FORMATS: Record<ColumnKind, string | undefined> = {
  text: "@",
  timestamp: "yyyy-mm-dd hh:mm:ss",
  count: "0",
  money: "#,##0.00##",
  number: undefined,
  boolean: undefined,
};

const WIDTHS: Record<ColumnKind, number> = {
  text: 18,
  timestamp: 20,
  count: 10,
  money: 12,
  number: 10,
  boolean: 8,
};

const HEADER_FONT = { bold: true, name: "Calibri", size: 11 };

type CellValue = string | number | boolean | Date | null;

/** The workbook value of one cell: text stays text, timestamps become dates, numbers numbers. */
function xlsxValue(kind: ColumnKind, v: Cell): CellValue {
  if (v === null || v === undefined || v === "") return null;
  switch (kind) {
    case "timestamp": {
      if (typeof v === "string") {
        const ms = Date.parse(v);
        if (Number.isFinite(ms)) return new Date(ms);
      }
      break;
    }
    case "count":
    case "money":
    case "number": {
      if (typeof v === "number") return v;
      if (typeof v === "bigint") return Number(v);
      if (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
      break;
    }
    case "boolean":
      if (typeof v === "boolean") return v;
      break;
    case "text":
      break;
  }
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The readable-stream exceljs's worksheet pipes into the zip, where unconsumed XML accumulates. */
interface Backlog {
  _writableState: { length: number };
  once(event: "drain", fn: () => void): unknown;
}

function zipInputOf(ws: ExcelJSModule.Worksheet): Backlog | null {
  // exceljs's WorksheetWriter streams its XML through a StreamBuf piped into archiver's PassThrough;
  // StreamBuf ignores the PassThrough's write() result, so the XML piles up there unless we wait.
  const pipe = (ws as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as
    | Partial<Backlog>
    | undefined;
  return pipe && typeof pipe._writableState?.length === "number" && typeof pipe.once === "function"
    ? (pipe as Backlog)
    : null;
}

/**
 * For a workbook that must be new (an appending export): exit 2 when something exists at `path`,
 * which is left untouched. Call it before any request; openXlsxSink checks again.
 */
export async function refuseExistingWorkbook(path: string, hint: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing)
    throw new UsageError(`${path} already exists; a workbook is never appended to or replaced.`, hint);
}

/** The first failure of the file stream or the zip, as a promise that rejects with it. */
interface FailureLatch {
  readonly failure: unknown;
  readonly failed: Promise<never>;
  fail(err: unknown): void;
}

function failureLatch(): FailureLatch {
  let failure: unknown;
  let reject: (err: unknown) => void = () => {};
  const failed = new Promise<never>((_, r) => {
    reject = r;
  });
  failed.catch(() => {});
  return {
    get failure() {
      return failure;
    },
    failed,
    fail(err) {
      failure ??= err;
      reject(err);
    },
  };
}

/** Refuses a folder, and an existing file when the workbook must be new. */
async function checkTarget(path: string, o: XlsxSinkOptions): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`Cannot write ${path}: it is a folder.`);
  if (existing && o.refuseExisting)
    throw new UsageError(
      `${path} already exists; a workbook is never appended to or replaced.`,
      o.refuseExisting.hint,
    );
}

/** The sheets of one workbook: the current one, and the next one (header row repeated) on demand. */
class SheetSeries {
  ws!: ExcelJSModule.Worksheet;
  sheets = 0;
  inSheet = 0;
  constructor(
    private readonly wb: ExcelJSModule.stream.xlsx.WorkbookWriter,
    private readonly cols: readonly Column[],
    private readonly sheetName: string,
  ) {}

  add(): void {
    this.sheets++;
    const name = this.sheets === 1 ? this.sheetName : `${this.sheetName} (${this.sheets})`;
    const ws = this.wb.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1, xSplit: 0 }] });
    ws.columns = this.cols.map((c, i) => {
      const numFmt = FORMATS[c.kind];
      return {
        key: `c${i}`,
        width: c.width ?? Math.max(WIDTHS[c.kind], c.name.length + 2),
        ...(numFmt ? { style: { numFmt } } : {}),
      };
    });
    const header = ws.addRow(this.cols.map((c) => c.name));
    header.eachCell((cell) => {
      cell.style = { font: HEADER_FONT, numFmt: "@" };
    });
    header.commit();
    this.ws = ws;
    this.inSheet = 0;
  }
}

/**
 * Opens a workbook at `path` (written to a temporary file beside it) with one sheet and its header
 * row. Write rows with `write`, then `commit` (finish, fsync, rename) or `abort` (remove the temp file).
 */
export async function openXlsxSink(
  path: string,
  cols: readonly Column[],
  o: XlsxSinkOptions,
): Promise<XlsxSink> {
  const perSheet = o.maxRowsPerSheet ?? EXCEL_MAX_ROWS - 1;
  if (!Number.isInteger(perSheet) || perSheet < 1) throw new Error(`maxRowsPerSheet ${perSheet}`);
  await checkTarget(path, o);
  const ExcelJS = (await import("exceljs")).default;
  let temp: TempOutput;
  try {
    temp = await openTempOutput(path);
  } catch (err) {
    throw fileWriteError(path, err);
  }
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: temp.stream,
    useStyles: true,
    useSharedStrings: false,
  });
  wb.creator = "partner-cli";
  const zip = (wb as unknown as { zip: NodeJS.EventEmitter & { abort(): void } }).zip;
  const latch = failureLatch();
  temp.stream.on("error", (err) => latch.fail(err));
  zip.on("error", (err: unknown) => latch.fail(err));
  const stop = async () => {
    zip.on("error", () => {});
    try {
      zip.abort();
    } catch {
      // already finished or failed
    }
    await temp.discard();
  };
  const series = new SheetSeries(wb, cols, o.sheetName);
  try {
    series.add();
  } catch (err) {
    await stop();
    throw err;
  }
  return xlsxSink({ path, cols, perSheet, wb, temp, latch, series, stop });
}

interface SinkParts {
  path: string;
  cols: readonly Column[];
  perSheet: number;
  wb: ExcelJSModule.stream.xlsx.WorkbookWriter;
  temp: TempOutput;
  latch: FailureLatch;
  series: SheetSeries;
  stop(): Promise<void>;
}

function xlsxSink(p: SinkParts): XlsxSink {
  const { path, latch, series } = p;
  const kinds = p.cols.map((c) => c.kind);
  let rows = 0;
  let backpressure = true;
  let done = false;
  const waitForZip = async () => {
    const input = zipInputOf(series.ws);
    if (!input) {
      backpressure = false;
      await new Promise((r) => setImmediate(r));
      return;
    }
    while (input._writableState.length > BACKLOG_BYTES && latch.failure === undefined)
      await Promise.race([once(input as unknown as NodeJS.EventEmitter, "drain"), latch.failed]);
  };
  return {
    path,
    get sheets() {
      return series.sheets;
    },
    get rows() {
      return rows;
    },
    get backpressure() {
      return backpressure;
    },
    async write(batch) {
      if (latch.failure !== undefined) throw fileWriteError(path, latch.failure);
      try {
        for (const r of batch) {
          if (series.inSheet === p.perSheet) {
            series.ws.commit();
            series.add();
          }
          series.ws.addRow(kinds.map((k, i) => xlsxValue(k, r[i]))).commit();
          series.inSheet++;
          rows++;
        }
        await waitForZip();
      } catch (err) {
        throw fileWriteError(path, latch.failure ?? err);
      }
    },
    async commit() {
      if (done) return;
      done = true;
      try {
        series.ws.commit();
        await Promise.race([p.wb.commit(), latch.failed]);
        await p.temp.finish();
      } catch (err) {
        await p.stop();
        throw fileWriteError(path, latch.failure ?? err);
      }
    },
    async abort() {
      if (done) return;
      done = true;
      await p.stop();
    },
  };
}
