// `links assign --ids FILE` reads id lists with the same decoding, delimiter and header matcher as
// roster import: CRM headers, no header, `;`, Windows-1252, UTF-16, --column, and says what it read.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { beforeEach, describe, expect, it } from "vitest";
import { linksAssignRun } from "../../src/commands/links/assign.js";
import { type IdListOptions, readIdList } from "../../src/csv/id-list.js";
import { makeCampaign, runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const dir = mkdtempSync(join(tmpdir(), "ids-"));
function file(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

async function read(content: string | Buffer, o: IdListOptions = {}, name = "ids.csv") {
  const notes: string[] = [];
  const list = await readIdList(file(name, content), new PassThrough(), { ...o, note: (l) => notes.push(l) });
  return { ...list, notes };
}

async function readError(content: string | Buffer, o: IdListOptions = {}) {
  try {
    await readIdList(file("bad.csv", content), new PassThrough(), o);
  } catch (err) {
    return err as Error & { hint?: string };
  }
  throw new Error("expected an error");
}

describe("--ids files", () => {
  it("a CRM's one-column export (Creator ID, external_id): one id per line after the header", async () => {
    const a = await read("Creator ID\r\nc-1\r\nc-2\r\n");
    expect(a).toMatchObject({ ids: ["c-1", "c-2"], read: 2, format: "lines" });
    expect(a.notes).toEqual([
      `${join(dir, "ids.csv")}: read 2 ids (one per line, after the header "Creator ID"): "c-1", "c-2".`,
    ]);
    expect((await read("external_id\nc-1\n")).ids).toEqual(["c-1"]);
  });

  it("a CRM export with more columns: CSV, the id column found by its name, a sample said", async () => {
    const rows = Array.from({ length: 12 }, (_, i) => `c-${i + 1},Name ${i + 1},c${i + 1}@example.com`);
    const r = await read(`Creator ID,Full Name,E-mail\r\n${rows.join("\r\n")}\r\n`);
    expect(r.format).toBe("csv");
    expect(r.ids).toHaveLength(12);
    expect(r.notes).toEqual([
      `${join(dir, "ids.csv")}: read 12 ids (CSV column "Creator ID", fields separated by ","): "c-1", "c-2", "c-3", "c-4", "c-5", … "c-12".`,
    ]);
  });

  it("no header, no delimiter: every line is an id", async () => {
    const r = await read('c-1\n  c "2"  \n\nc-3\r\n', {}, "plain.txt");
    expect(r).toMatchObject({ ids: ["c-1", 'c "2"', "c-3"], read: 3, duplicates: 0, format: "lines" });
    expect(r.notes[0]).toMatch(/read 3 ids \(one per line\)/);
  });

  it("a line holding the delimiter makes the file CSV: without an id column it is refused, naming that line", async () => {
    const err = await readError("c-1\nc-2\nc-3,extra\n");
    expect(err.message).toBe(
      `${join(dir, "bad.csv")} is CSV (line 3 holds ","), so its first line must name the id column; its columns are: "c-1".`,
    );
    expect(err.hint).toMatch(/--column externalId=HEADER, or give one id per line with no "," in it/);
  });

  it("European Excel (; and Windows-1252) with --column and --encoding", async () => {
    const bytes = Buffer.from("Member No;Name\r\nm-1;Zo\xeb\r\nm-\xe9;Jos\xe9\r\n", "latin1");
    const refused = await readError(bytes);
    expect(refused.message).toMatch(/line 2, field 2: bytes that are not UTF-8/);
    const noColumn = await readError(Buffer.from("Member No;Name\r\nm-1;Ann\r\n"));
    expect(noColumn.message).toMatch(/is CSV \(line 1 holds ";"\).*its columns are: "Member No", "Name"/);
    const r = await read(bytes, { encoding: "windows-1252", column: ["externalId=member no"] });
    expect(r.ids).toEqual(["m-1", "m-é"]);
    expect(r.notes[0]).toMatch(/CSV column "Member No", fields separated by ";"/);
  });

  it("UTF-16 with a byte order mark (Excel's Unicode text, tabs)", async () => {
    const text = "externalId\tname\r\nu-1\tAnn\r\nu-2\tBo\r\n";
    const r = await read(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
    expect(r.ids).toEqual(["u-1", "u-2"]);
  });

  it("--column for a plain list must name its first line; only externalId can be mapped", async () => {
    const err = await readError("c-1\nc-2\n", { column: ["externalId=Creator ID"] });
    expect(err.message).toMatch(/is one id per line and its first line is "c-1", not "Creator ID"/);
    await expect(
      readIdList(file("x.csv", "a\n"), new PassThrough(), { column: ["name=Full Name"] }),
    ).rejects.toThrow(/only externalId can be mapped here/);
  });

  it("an id with a control character is refused with its line", async () => {
    const err = await readError("externalId\nok\nb\u0000d\n");
    expect(err.message).toMatch(
      /line 3: "b\\u0000d" holds a control character \(U\+0000, NUL\) at position 2/,
    );
  });
});

describe("links assign --ids with a CRM file", () => {
  const s = useSandbox();
  beforeEach(async () => {
    await s.http("POST", "/reset", { control: true, body: {} });
  });

  it("sends the ids of the mapped column (not whole lines) and says which it read before sending", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const ids = file("crm.csv", "Name;Member No\r\nAnn;cr-0001\r\nBo;cr-0002\r\n");
    const t = s.context({ globals: { json: true } });
    const r = await runFn(t.ctx, () =>
      linksAssignRun({ campaign: "camp", externalIds: [], ids, column: ["externalId=Member No"] }, t.ctx),
    );
    await t.ctx.close();
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    const stderr = t.stderr();
    expect(stderr.indexOf(`${ids}: read 2 ids (CSV column "Member No"`)).toBeLessThan(
      stderr.indexOf("Queued job"),
    );
    expect(JSON.parse(t.stdout()).selection).toMatchObject({ identifiersRead: 2, matched: 2, unmatched: 0 });
  });
});
