// The xlsx writer: written workbooks are read back (exceljs's reader, and the sheet XML itself) to
// check cell types, the frozen bold header, sheet continuation past a (lowered) row limit, the file
// mode, and that nothing is left behind when a write is refused or aborted.
import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../../src/main.js";
import { chooseFormat, columns } from "../../src/io/table-file.js";
import { EXCEL_MAX_ROWS, openXlsxSink } from "../../src/io/xlsx.js";
import { REDEMPTION_COLUMNS, REDEMPTION_TABLE } from "../../src/export/redemption-rows.js";
import { tempDir } from "../helpers/sandbox.js";

const COLS = columns([
  ["externalId", "text"],
  ["serializedGs1", "text"],
  ["name", "text"],
  ["redeemedAt", "timestamp"],
  ["verifiedRedemptions", "count"],
  ["estimatedCommission", "money"],
  ["commissionRate", "number"],
  ["active", "boolean"],
]);

const ROW = [
  "0012345000011",
  "010012345000011721000000042",
  "Chloé =1+1",
  "2026-03-01T12:34:56Z",
  7,
  12.3456,
  0.1,
  true,
];

async function readBack(path: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  return wb;
}

/** One part of the zip, as text (unzip is on every machine the tests run on). */
function zipPart(path: string, part: string): string {
  return execFileSync("unzip", ["-p", path, part], { encoding: "utf8", maxBuffer: 64 << 20 });
}

describe("openXlsxSink", () => {
  it("identifiers are text (leading zeros kept), timestamps dates, counts and money numbers, header frozen and bold", async () => {
    const path = join(tempDir(), "out.xlsx");
    const sink = await openXlsxSink(path, COLS, { sheetName: "Test" });
    await sink.write([ROW, ["007", null, "", null, 0, 0, 0, false]]);
    expect(sink.backpressure).toBe(true);
    await sink.commit();

    const wb = await readBack(path);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Test"]);
    const ws = wb.worksheets[0]!;
    expect(ws.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    const header = ws.getRow(1);
    expect(header.values).toEqual([undefined, ...COLS.map((c) => c.name)]);
    expect(header.getCell(1).font?.bold).toBe(true);

    const r = ws.getRow(2);
    expect(r.getCell(1).value).toBe("0012345000011");
    expect(r.getCell(1).type).toBe(ExcelJS.ValueType.String);
    expect(r.getCell(1).numFmt).toBe("@");
    expect(r.getCell(2).value).toBe("010012345000011721000000042");
    expect(r.getCell(3).value).toBe("Chloé =1+1");
    expect(r.getCell(3).type).toBe(ExcelJS.ValueType.String);
    expect(r.getCell(4).type).toBe(ExcelJS.ValueType.Date);
    expect((r.getCell(4).value as Date).toISOString()).toBe("2026-03-01T12:34:56.000Z");
    expect(r.getCell(4).numFmt).toBe("yyyy-mm-dd hh:mm:ss");
    expect(r.getCell(5).value).toBe(7);
    expect(r.getCell(5).type).toBe(ExcelJS.ValueType.Number);
    expect(r.getCell(6).value).toBe(12.3456);
    expect(r.getCell(6).type).toBe(ExcelJS.ValueType.Number);
    expect(r.getCell(7).value).toBe(0.1);
    expect(r.getCell(8).value).toBe(true);
    expect(r.getCell(8).type).toBe(ExcelJS.ValueType.Boolean);
    // "007" stays text; empty values are empty cells, not "" or 0
    const r3 = ws.getRow(3);
    expect(r3.getCell(1).value).toBe("007");
    expect(r3.getCell(2).value).toBeNull();
    expect(r3.getCell(3).value).toBeNull();
    expect(r3.getCell(5).value).toBe(0);

    // The sheet XML itself: the identifier is a string cell with its zeros, the date a number
    // (Excel's serial day) under a date style, and no formula anywhere.
    const xml = zipPart(path, "xl/worksheets/sheet1.xml");
    expect(xml).toMatch(/<c r="A2" s="\d+" t="str"><v>0012345000011<\/v><\/c>/);
    expect(xml).toMatch(/<c r="D2" s="\d+"><v>46082\.524259\d*<\/v><\/c>/);
    expect(xml).toContain('<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>');
    expect(xml).not.toContain("<f>");
  });

  it("continues on a new sheet with the header repeated past the row limit", async () => {
    const path = join(tempDir(), "big.xlsx");
    const sink = await openXlsxSink(path, COLS.slice(0, 2), { sheetName: "Rows", maxRowsPerSheet: 3 });
    const rows = Array.from({ length: 7 }, (_, i) => [`id-${i}`, `00${i}`]);
    await sink.write(rows.slice(0, 2));
    await sink.write(rows.slice(2));
    expect(sink.sheets).toBe(3);
    expect(sink.rows).toBe(7);
    await sink.commit();
    const wb = await readBack(path);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Rows", "Rows (2)", "Rows (3)"]);
    const values = wb.worksheets.map((ws) => {
      const out: unknown[] = [];
      ws.eachRow((row) => out.push((row.values as unknown[]).slice(1)));
      return out;
    });
    expect(values).toEqual([
      [
        ["externalId", "serializedGs1"],
        ["id-0", "000"],
        ["id-1", "001"],
        ["id-2", "002"],
      ],
      [
        ["externalId", "serializedGs1"],
        ["id-3", "003"],
        ["id-4", "004"],
        ["id-5", "005"],
      ],
      [
        ["externalId", "serializedGs1"],
        ["id-6", "006"],
      ],
    ]);
    for (const ws of wb.worksheets) expect(ws.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
  });

  it("the default limit is Excel's: 1,048,576 rows a sheet, header included", () => {
    expect(EXCEL_MAX_ROWS).toBe(1_048_576);
  });

  it("the redemption workbook has the CSV's columns, ids as text and the four times as dates", () => {
    expect(REDEMPTION_TABLE.map((c) => c.name)).toEqual([...REDEMPTION_COLUMNS]);
    expect(REDEMPTION_TABLE.filter((c) => c.kind === "timestamp").map((c) => c.name)).toEqual([
      "redeemedAt",
      "recordedAt",
      "excludedAt",
      "changedAt",
    ]);
    expect(REDEMPTION_TABLE.filter((c) => c.kind !== "timestamp").every((c) => c.kind === "text")).toBe(true);
  });

  it("is created 0600 whatever the umask; a replaced file keeps its mode", async () => {
    const dir = tempDir();
    const old = process.umask(0o000);
    try {
      const fresh = join(dir, "fresh.xlsx");
      const a = await openXlsxSink(fresh, COLS, { sheetName: "T" });
      await a.commit();
      expect(statSync(fresh).mode & 0o777).toBe(0o600);
      const shared = join(dir, "shared.xlsx");
      writeFileSync(shared, "old");
      chmodSync(shared, 0o644);
      const b = await openXlsxSink(shared, COLS, { sheetName: "T" });
      await b.write([ROW]);
      await b.commit();
      expect(statSync(shared).mode & 0o777).toBe(0o644);
      expect(readFileSync(shared).subarray(0, 2).toString()).toBe("PK");
    } finally {
      process.umask(old);
    }
    expect(readdirSync(dir).sort()).toEqual(["fresh.xlsx", "shared.xlsx"]);
  });

  it("refuseExisting: an existing file is a usage error, its bytes unchanged, nothing left behind", async () => {
    const dir = tempDir();
    const path = join(dir, "done.xlsx");
    writeFileSync(path, "yesterday's workbook");
    const err = await openXlsxSink(path, COLS, {
      sheetName: "T",
      refuseExisting: { hint: "Use a new name." },
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(exitCodeFor(err)).toBe(2);
    expect(String(err)).toMatch(/done\.xlsx already exists; a workbook is never appended to or replaced/);
    expect(readFileSync(path, "utf8")).toBe("yesterday's workbook");
    expect(readdirSync(dir)).toEqual(["done.xlsx"]);
  });

  it("abort leaves no file and an existing one untouched", async () => {
    const dir = tempDir();
    const path = join(dir, "x.xlsx");
    writeFileSync(path, "keep");
    const sink = await openXlsxSink(path, COLS, { sheetName: "T" });
    await sink.write([ROW]);
    expect(readdirSync(dir)).toHaveLength(2);
    await sink.abort();
    expect(readdirSync(dir)).toEqual(["x.xlsx"]);
    expect(readFileSync(path, "utf8")).toBe("keep");
  });

  it("a folder as the target is a usage error", async () => {
    const err = await openXlsxSink(tempDir(), COLS, { sheetName: "T" }).catch((e: unknown) => e);
    expect(exitCodeFor(err)).toBe(2);
    expect(String(err)).toMatch(/it is a folder/);
  });
});

describe("chooseFormat", () => {
  const code = (f: () => unknown) => {
    try {
      f();
      return 0;
    } catch (e) {
      return exitCodeFor(e);
    }
  };
  it("csv by default, xlsx from --format or from a .xlsx name", () => {
    expect(chooseFormat({})).toBe("csv");
    expect(chooseFormat({ out: "a.csv" })).toBe("csv");
    expect(chooseFormat({ out: "A.XLSX" })).toBe("xlsx");
    expect(chooseFormat({ out: "a", format: "xlsx" })).toBe("xlsx");
    expect(chooseFormat({ out: "a.csv", format: "CSV", bom: true })).toBe("csv");
    expect(chooseFormat({ format: "ndjson" }, ["csv", "ndjson", "xlsx"])).toBe("ndjson");
  });
  it("refuses mistakes before any request (exit 2)", () => {
    expect(code(() => chooseFormat({ format: "xls" }))).toBe(2);
    expect(code(() => chooseFormat({ format: "xlsx" }))).toBe(2); // stdout
    expect(code(() => chooseFormat({ format: "xlsx", out: "-" }))).toBe(2);
    expect(code(() => chooseFormat({ format: "xlsx", out: "a.csv" }))).toBe(2);
    expect(code(() => chooseFormat({ format: "csv", out: "a.xlsx" }))).toBe(2);
    expect(code(() => chooseFormat({ out: "a.xlsx", bom: true }))).toBe(2);
    expect(code(() => chooseFormat({ format: "ndjson", bom: true }, ["csv", "ndjson", "xlsx"]))).toBe(2);
    expect(code(() => chooseFormat({ format: "ndjson" }))).toBe(2);
  });
});
