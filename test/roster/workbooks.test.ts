// Excel workbooks (.xlsx) as roster input, against the sandbox: workbooks made by other tools (their
// own header names, text ids with leading zeros, numeric ids, dates, formulas, booleans), --sheet,
// error cells named by cell, the export → edit → import round trip, stdin, and the spreadsheet
// formats that cannot be read (one sentence, exit 2, nothing sent).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { beforeEach, describe, expect, it } from "vitest";
import { rosterExportRun } from "../../src/commands/roster/export.js";
import { type ImportOptions, rosterImportRun } from "../../src/commands/roster/import.js";
import { runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import {
  crmWorkbook,
  encryptedXlsx,
  numbersFile,
  odsFile,
  sheetWorkbook,
  xlsFile,
  zip,
} from "../helpers/workbooks.js";
import { creatorCount, errorText, writeTemp } from "./harness.js";

const s = useSandbox({ seed: "empty" });
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: { seed: "empty" } });
});

const imp = (file: string, opts: ImportOptions = {}) =>
  runFn(s.sb, (ctx) => rosterImportRun({ file, ...opts }, ctx), { globals: { json: true } });

/** The stored creators, as [externalId, name, email, handle, active]. */
async function stored(): Promise<unknown[][]> {
  const r = await s.http("GET", "/creators?pageSize=200");
  return (r.body.items as Record<string, unknown>[])
    .map((c) => [c.externalId, c.name, c.email, c.handle, c.active])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

describe("a workbook made by another tool", () => {
  it("--sheet by name: text ids keep their zeros, a formula gives its saved result, rich text its text, booleans and yes read as active", async () => {
    const path = writeTemp(await crmWorkbook(), "crm.xlsx");
    const r = await imp(path, { sheet: "Creators" });
    expect(r.exitCode).toBe(0);
    expect(r.json().summary).toEqual({ rows: 3, added: 3, updated: 0, unchanged: 0, rejected: 0 });
    expect(await stored()).toEqual([
      ["000123", "Zoë Adams", "zoe@example.com", null, true],
      ["000124", "Jürgen Müller", "jurgen@example.de", null, false],
      ["000125", "José Núñez", null, null, true],
    ]);
    expect(r.stderr).toContain(`Reading ${path}, sheet "Creators" (2 of 3).`);
    expect(r.stderr).toContain(
      'Columns: externalId from "Creator ID", name from "Full Name", email from "E-mail", active from "Active".',
    );
    expect(r.stderr).toContain("Ignoring 1 column not used by the roster: Joined.");
    // the batch reports the sheet's row numbers (the blank row 4 skipped)
    expect(r.json().batches).toEqual([
      { firstLine: 2, lastLine: 5, rows: 3, added: 3, updated: 0, unchanged: 0, rejected: 0 },
    ]);
  });

  it("--sheet by number: numeric ids in full digits, a 000000 format padded, other numbers shortest", async () => {
    const path = writeTemp(await crmWorkbook(), "crm.xlsx");
    const r = await imp(path, { sheet: "3" });
    expect(r.exitCode, `${errorText(r)}\n${r.stderr}`).toBe(0);
    expect(await stored()).toEqual([
      ["000042", "Padded", null, null, true],
      ["1234567890123", "Big Number", null, null, true],
      ["7.5", "Half", null, null, true],
    ]);
    expect(r.stderr).toContain(`Reading ${path}, sheet "Numbers" (3 of 3).`);
  });

  it("exceljs's streaming reader sometimes loses a zip entry (exceljs/exceljs#3064): 100 imports in a row all read the sheet exactly", async () => {
    const path = writeTemp(await crmWorkbook(), "crm.xlsx");
    const failed: string[] = [];
    for (let i = 0; i < 100; i++) {
      await s.http("POST", "/reset", { control: true, body: { seed: "empty" } });
      const r = await imp(path, { sheet: i % 2 ? "Numbers" : "Creators" });
      if (r.exitCode !== 0 || (await creatorCount(s.sb)) !== 3) failed.push(`${r.exitCode}: ${errorText(r)}`);
    }
    expect(failed).toEqual([]);
  });

  it("dates read as ISO text (YYYY-MM-DD, or with the time)", async () => {
    const path = writeTemp(await crmWorkbook(), "crm.xlsx");
    const r = await imp(path, { sheet: "Creators", column: ["handle=Joined"] });
    expect(r.exitCode).toBe(0);
    const handles = (await stored()).map((c) => c[3]);
    expect(handles).toEqual(["2024-03-01", "2024-03-01T10:30:00", null]);
  });

  it("the first sheet by default; a missing sheet: exit 2, the sheets listed, nothing sent", async () => {
    const path = writeTemp(await crmWorkbook(), "crm.xlsx");
    const first = await imp(path);
    expect(first.exitCode).toBe(2);
    expect(errorText(first)).toBe(
      `${path} has no externalId column. The columns found are: "Exported from the CRM on 2025-03-01".`,
    );
    const missing = await imp(path, { sheet: "Creatorz" });
    expect(missing.exitCode).toBe(2);
    expect(errorText(missing)).toBe(
      `${path} has no sheet "Creatorz"; its sheets are: "Notes", "Creators", "Numbers". Nothing was sent.`,
    );
    expect((missing.thrown as { hint: string }).hint).toBe(
      "Choose one with --sheet NAME, or --sheet N for the Nth (1 to 3).",
    );
    expect((await imp(path, { sheet: "4", dryRun: true })).exitCode).toBe(2);
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("--sheet with a CSV file is refused", async () => {
    const path = writeTemp("externalId,name\nc-1,Ann\n", "r.csv");
    const r = await imp(path, { sheet: "Creators" });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `--sheet "Creators": ${path} is CSV text, not an Excel workbook, so it has no sheets; nothing was sent.`,
    );
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("--encoding and --delimiter do not apply to a workbook: said, and it is read", async () => {
    const path = writeTemp(
      await sheetWorkbook([
        ["externalId", "name"],
        ["w-1", "Ann"],
      ]),
      "w.xlsx",
    );
    const r = await imp(path, { encoding: "windows-1252", delimiter: ";" });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      `${path} is an Excel workbook: --encoding and --delimiter do not apply and are ignored.`,
    );
    expect(await stored()).toEqual([["w-1", "Ann", null, null, true]]);
  });
});

describe("cells a row cannot use", () => {
  it("an error cell and a formula without a saved result: the row rejected naming the cell; the rejects file's line column holds the row's range and re-imports", async () => {
    const path = writeTemp(
      await sheetWorkbook([
        ["externalId", "name", "email", "notes"],
        ["e-1", "Ann", "ann@example.com", { error: "#REF!" }],
        ["e-2", "Bob", { error: "#N/A" }, ""],
        ["e-3", { formula: "A1&B1" }, "cy@example.com", ""],
        ["e-4", "Dee", "dee@example.com", ""],
      ]),
      "errors.xlsx",
    );
    const rejects = join(tempDir(), "rejects.csv");
    const r = await imp(path, { rejects });
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected).toEqual([
      {
        line: 3,
        place: "Sheet1!A3:D3",
        externalId: "e-2",
        reasons: ["email: Sheet1!C3 holds the error #N/A"],
      },
      {
        line: 4,
        place: "Sheet1!A4:D4",
        externalId: "e-3",
        reasons: ["name: Sheet1!B4 is a formula with no saved result"],
      },
    ]);
    expect(r.stderr).toContain("Sheet1!A3:D3 (e-2): email: Sheet1!C3 holds the error #N/A");
    // an error in a column the roster does not use does not matter
    expect((await stored()).map((c) => c[0])).toEqual(["e-1", "e-4"]);
    const rows = parse(readFileSync(rejects, "utf8")) as string[][];
    expect(rows).toEqual([
      ["line", "reasons", "externalId", "name", "email", "notes"],
      ["Sheet1!A3:D3", "email: Sheet1!C3 holds the error #N/A", "e-2", "Bob", "#N/A", ""],
      ["Sheet1!A4:D4", "name: Sheet1!B4 is a formula with no saved result", "e-3", "", "cy@example.com", ""],
    ]);
    // the rejects file, fixed, imports as it is (its line and reasons columns are passed over)
    const fixed = readFileSync(rejects, "utf8")
      .replace(",#N/A,", ",bob@example.com,")
      .replace(",,cy@", ",Cy,cy@");
    const again = await imp(writeTemp(fixed, "fixed.csv"));
    expect(again.exitCode).toBe(0);
    expect(again.json().summary).toEqual({ rows: 2, added: 2, updated: 0, unchanged: 0, rejected: 0 });
    expect((await stored()).map((c) => c.slice(0, 3))).toEqual([
      ["e-1", "Ann", "ann@example.com"],
      ["e-2", "Bob", "bob@example.com"],
      ["e-3", "Cy", "cy@example.com"],
      ["e-4", "Dee", "dee@example.com"],
    ]);
  });

  it("a repeated id and a cell past the header are named by cell", async () => {
    const path = writeTemp(
      await sheetWorkbook(
        [
          ["externalId", "name"],
          ["r-1", "Ann"],
          ["r-1", "Ann again"],
          ["r-2", "Bob", "stray"],
        ],
        "My Sheet",
      ),
      "repeat.xlsx",
    );
    const r = await imp(path, { dryRun: true });
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected.map((x: { reasons: string[] }) => x.reasons)).toEqual([
      ["externalId: also on 'My Sheet'!A2"],
      ["row has 3 fields; the header has 2 ('My Sheet'!C4 is \"stray\")"],
    ]);
    expect(await creatorCount(s.sb)).toBe(0);
  });
});

describe("export → edit in Excel → import", () => {
  it("untouched rows come back unchanged, the edited one updated", async () => {
    const people = [
      { externalId: "007", name: "Bond, James", email: "jb@example.com", handle: "@007", active: true },
      { externalId: "rt-2", name: "Zoë Adams", email: null, handle: null, active: false },
      { externalId: "rt-3", name: "José Núñez", email: "jose@example.es", handle: null, active: true },
    ];
    for (const p of people) {
      const res = await s.http("PUT", `/creators/${encodeURIComponent(p.externalId)}`, { body: p });
      expect(res.status).toBeLessThan(300);
    }
    const out = join(tempDir(), "roster.xlsx");
    expect((await runFn(s.sb, (ctx) => rosterExportRun({ out }, ctx))).exitCode).toBe(0);

    const same = await imp(out);
    expect(same.exitCode).toBe(0);
    expect(same.json().summary).toEqual({ rows: 3, added: 0, updated: 0, unchanged: 3, rejected: 0 });

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(out);
    const ws = wb.getWorksheet("Roster")!;
    let edited = 0;
    ws.eachRow((row) => {
      if (row.getCell(1).value === "rt-3") {
        row.getCell(2).value = "José Núñez García";
        edited = row.number;
      }
    });
    expect(edited).toBeGreaterThan(1);
    await wb.xlsx.writeFile(out);

    const r = await imp(out);
    expect(r.exitCode).toBe(0);
    expect(r.json().summary).toEqual({ rows: 3, added: 0, updated: 1, unchanged: 2, rejected: 0 });
    expect(await stored()).toEqual([
      ["007", "Bond, James", "jb@example.com", "@007", true],
      ["rt-2", "Zoë Adams", null, null, false],
      ["rt-3", "José Núñez García", "jose@example.es", null, true],
    ]);
  });
});

describe("stdin", () => {
  it("a workbook on stdin is read by content, both passes (checked, then sent)", async () => {
    const bytes = await sheetWorkbook([
      ["Creator ID", "Full Name"],
      ["s-1", "Ann"],
      ["s-2", "Bob"],
    ]);
    const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: "-" }, ctx), {
      globals: { json: true },
      setup: async (ctx) => {
        (ctx.io.stdin as PassThrough).end(bytes);
      },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('Reading stdin, sheet "Sheet1" (1 of 1).');
    expect(await stored()).toEqual([
      ["s-1", "Ann", null, null, true],
      ["s-2", "Bob", null, null, true],
    ]);
  });
});

describe("spreadsheet formats that cannot be read: one sentence, exit 2, nothing sent", () => {
  const SAVE = 'save it as "Excel Workbook (.xlsx)" or "CSV UTF-8", then import that file; nothing was sent.';
  const cases: [string, string, () => Buffer | Promise<Buffer>, (p: string) => string][] = [
    [
      "an Excel 97-2003 .xls",
      "old.xls",
      xlsFile,
      (p) => `${p} is an Excel 97-2003 workbook (.xls), which cannot be read: open it in Excel and ${SAVE}`,
    ],
    [
      "a password-protected .xlsx",
      "locked.xlsx",
      encryptedXlsx,
      (p) =>
        `${p} is a password-protected workbook, which cannot be read: open it in Excel, remove the password (File > Info > Protect Workbook), and ${SAVE}`,
    ],
    [
      "an .ods",
      "sheet.ods",
      odsFile,
      (p) =>
        `${p} is an OpenDocument spreadsheet (.ods), which cannot be read: open it in LibreOffice or Excel and ${SAVE}`,
    ],
    [
      "a .numbers file",
      "sheet.numbers",
      numbersFile,
      (p) =>
        `${p} is an Apple Numbers file, which cannot be read: in Numbers choose File > Export To > Excel (or CSV), then import that file; nothing was sent.`,
    ],
    [
      "a web page named .xls",
      "report.xls",
      () => Buffer.from("<html><body><table><tr><td>externalId</td></tr></table></body></html>\n"),
      (p) =>
        `${p} is a web page (HTML) named .xls, not a workbook, and cannot be read: open it in Excel and ${SAVE}`,
    ],
    [
      "an Excel 2003 XML spreadsheet",
      "report.xml",
      () =>
        Buffer.from(
          '<?xml version="1.0"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"></Workbook>\n',
        ),
      (p) => `${p} is an Excel 2003 XML spreadsheet, which cannot be read: open it in Excel and ${SAVE}`,
    ],
    [
      "a zip that is not a workbook",
      "archive.xlsx",
      () => zip([["word/document.xml", "<w:document/>"]], true),
      (p) => `${p} is a zip archive, not an Excel workbook (it holds no xl/workbook.xml). Nothing was sent.`,
    ],
  ];
  for (const [what, name, make, message] of cases) {
    it(what, async () => {
      const path = writeTemp(await make(), name);
      const r = await imp(path);
      expect(r.exitCode).toBe(2);
      expect(errorText(r)).toBe(message(path));
      expect(await creatorCount(s.sb)).toBe(0);
    });
  }
});
