// `links assign --ids ids.xlsx`: an Excel workbook as an id list (its header row naming the id
// column, or one column of ids without a header), --sheet, error cells named by cell, and the
// formats that cannot be read refused before anything is sent.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { beforeEach, describe, expect, it } from "vitest";
import { linksAssignRun } from "../../src/commands/links/assign.js";
import { type IdListOptions, readIdList } from "../../src/csv/id-list.js";
import { makeCampaign, runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { crmWorkbook, sheetWorkbook, xlsFile } from "../helpers/workbooks.js";

const dir = mkdtempSync(join(tmpdir(), "ids-xlsx-"));
function file(name: string, content: Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

async function read(path: string, o: IdListOptions = {}) {
  const notes: string[] = [];
  const list = await readIdList(path, new PassThrough(), { ...o, note: (l) => notes.push(l) });
  return { ...list, notes };
}

async function readError(path: string, o: IdListOptions = {}) {
  try {
    await readIdList(path, new PassThrough(), o);
  } catch (err) {
    return err as Error & { hint?: string };
  }
  throw new Error("expected an error");
}

describe("--ids workbooks", () => {
  it("the column the header names (Creator ID), text ids with their zeros; said with a sample", async () => {
    const path = file("crm.xlsx", await crmWorkbook());
    const r = await read(path, { sheet: "Creators" });
    expect(r).toMatchObject({ ids: ["000123", "000124", "000125"], read: 3, format: "xlsx" });
    expect(r.notes).toEqual([
      `${path}: read 3 ids (sheet "Creators", column "Creator ID"): "000123", "000124", "000125".`,
    ]);
  });

  it("--sheet by number: numeric ids in full digits, zero-padded by their format", async () => {
    const r = await read(file("crm.xlsx", await crmWorkbook()), { sheet: "3" });
    expect(r.ids).toEqual(["1234567890123", "000042", "7.5"]);
  });

  it("one column of ids without a header: every row is an id", async () => {
    const path = file("plain.xlsx", await sheetWorkbook([["cr-0001"], ["cr-0002"], [], ["cr-0001"]]));
    const r = await read(path);
    expect(r).toMatchObject({ ids: ["cr-0001", "cr-0002"], read: 3, duplicates: 1, format: "xlsx" });
    expect(r.notes).toEqual([
      `${path}: read 3 ids (sheet "Sheet1", column A, no header): "cr-0001", "cr-0002".`,
    ]);
  });

  it("an error cell in the id column: refused, the cell named", async () => {
    const path = file(
      "err.xlsx",
      await sheetWorkbook([
        ["externalId", "notes"],
        ["cr-0001", { error: "#REF!" }],
        [{ error: "#N/A" }, "x"],
      ]),
    );
    const err = await readError(path);
    expect(err.message).toBe(`${path} holds 1 invalid externalId:\n  Sheet1!A3: "#N/A" holds the error #N/A`);
  });

  it("a missing sheet lists the sheets; --sheet with a CSV file is refused", async () => {
    const path = file("crm.xlsx", await crmWorkbook());
    expect((await readError(path, { sheet: "Ids" })).message).toBe(
      `${path} has no sheet "Ids"; its sheets are: "Notes", "Creators", "Numbers".`,
    );
    const csv = join(dir, "ids.csv");
    writeFileSync(csv, "externalId\ncr-0001\n");
    expect((await readError(csv, { sheet: "1" })).message).toBe(
      `--sheet "1": ${csv} is CSV text, not an Excel workbook, so it has no sheets; nothing was sent.`,
    );
  });
});

describe("links assign --ids ids.xlsx", () => {
  const s = useSandbox();
  beforeEach(async () => {
    await s.http("POST", "/reset", { control: true, body: {} });
  });

  it("sends the ids of the workbook's id column and says what it read before sending", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const ids = file(
      "ids.xlsx",
      await sheetWorkbook(
        [
          ["Name", "Member No"],
          ["Ann", "cr-0001"],
          ["Bo", "cr-0002"],
        ],
        "Ids",
      ),
    );
    const t = s.context({ globals: { json: true } });
    const r = await runFn(t.ctx, () =>
      linksAssignRun({ campaign: "camp", externalIds: [], ids, column: ["externalId=Member No"] }, t.ctx),
    );
    await t.ctx.close();
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    const stderr = t.stderr();
    expect(
      stderr.indexOf(`${ids}: read 2 ids (sheet "Ids", column "Member No"): "cr-0001", "cr-0002".`),
    ).toBeGreaterThanOrEqual(0);
    expect(stderr.indexOf(`${ids}: read 2 ids`)).toBeLessThan(stderr.indexOf("Queued job"));
    expect(JSON.parse(t.stdout()).selection).toMatchObject({ identifiersRead: 2, matched: 2, unmatched: 0 });
  });

  it("an .xls is refused in one sentence; no job, no link", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    const ids = file("ids.xls", xlsFile());
    const r = await runFn(s.sb, (ctx) => linksAssignRun({ campaign: "camp", externalIds: [], ids }, ctx));
    expect(r.exitCode).toBe(2);
    expect((r.thrown as Error).message).toBe(
      `${ids} is an Excel 97-2003 workbook (.xls), which cannot be read: open it in Excel and save it as "Excel Workbook (.xlsx)" or "CSV UTF-8", then import that file; nothing was sent.`,
    );
    expect(r.stderr).not.toContain("Queued job");
    const links = await s.http("GET", `/campaigns/${c.id}/creators?pageSize=1`);
    expect(links.body.totalCount).toBe(0);
  });
});
