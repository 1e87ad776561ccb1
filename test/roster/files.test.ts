// The corpus of real-world input files (test/fixtures/files/, made by scripts/make-fixtures.mjs):
// each file's exact outcome: exit code, the creators stored in the sandbox, the lines named.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/sandbox.js";
import { creator, creatorCount, errorText, fixtureFile, fixtureScript, useEmptyRoster } from "./harness.js";

const { fixtures, bigMisplacedQuote, FIXTURES_DIR } = fixtureScript;
const file = fixtureFile;

const { s, imp } = useEmptyRoster();

/** The stored creators, as [externalId, name, email, handle, active]. */
async function stored(): Promise<unknown[][]> {
  const r = await s.http("GET", "/creators?pageSize=200");
  return (r.body.items as Record<string, unknown>[])
    .map((c) => [c.externalId, c.name, c.email, c.handle, c.active])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

const PEOPLE = [
  ["fx-1", "Zoë Adams", "zoe@example.com", "@zoe", true],
  ["fx-2", "Jürgen Müller", "jurgen@example.de", "@jmuller", true],
  ["fx-3", "José Núñez", "jose@example.es", null, false],
];

describe("the committed corpus", () => {
  it("is exactly what scripts/make-fixtures.mjs makes", () => {
    const made: Map<string, Buffer> = fixtures();
    const committed = readdirSync(FIXTURES_DIR).sort();
    expect(committed).toEqual([...made.keys()].sort());
    for (const [name, bytes] of made) expect(readFileSync(file(name)).equals(bytes), name).toBe(true);
  });
});

describe("files from Excel and CRMs", () => {
  it("Excel's CSV (Windows-1252): refused without a flag (line, field, how it reads, the flag); read with --encoding", async () => {
    const refused = await imp(file("excel-cp1252.csv"));
    expect(refused.exitCode).toBe(2);
    expect(errorText(refused)).toContain(
      "excel-cp1252.csv: line 2, field 2 (name): bytes that are not UTF-8 (byte 8 of the line). Nothing was sent.\nRead as Windows-1252, line 2 is:\n  2 | fx-1,Zoë Adams,zoe@example.com,@zoe,true",
    );
    expect((refused.thrown as { hint: string }).hint).toMatch(/--encoding windows-1252/);
    expect(await creatorCount(s.sb)).toBe(0);

    const ok = await imp(file("excel-cp1252.csv"), { encoding: "windows-1252" });
    expect(ok.exitCode).toBe(0);
    expect(ok.json().summary).toEqual({ rows: 3, added: 3, updated: 0, unchanged: 0, rejected: 0 });
    expect(await stored()).toEqual(PEOPLE);
    expect(ok.stderr).toMatch(
      /Reading .*excel-cp1252\.csv as windows-1252 \(--encoding\), fields separated by ","/,
    );
  });

  it("a CRM export in latin1", async () => {
    const r = await imp(file("crm-latin1.csv"), { encoding: "latin1" });
    expect(r.exitCode).toBe(0);
    expect(await stored()).toEqual([
      ["la-1", "Françoise Ångström", "francoise@example.fr", "@fa", true],
      ["la-2", "Øyvind Ærø", "oyvind@example.no", "@oy", false],
    ]);
  });

  it('Excel "Unicode text" (UTF-16 LE, BOM, tabs) and UTF-16 BE with a BOM, without flags', async () => {
    for (const name of ["excel-unicode-utf16le.txt", "utf16be-bom.txt"]) {
      await s.http("POST", "/reset", { control: true, body: { seed: "empty" } });
      const r = await imp(file(name));
      expect(r.exitCode, name).toBe(0);
      expect(await stored()).toEqual(PEOPLE);
      expect(r.stderr).toMatch(/as UTF-16(LE|BE) \(byte order mark\), fields separated by tab/);
    }
  });

  it('Excel "CSV UTF-8" (BOM, CRLF) and plain UTF-8 give the same creators; the first changes nothing for the second', async () => {
    const a = await imp(file("excel-utf8-bom.csv"));
    expect(a.exitCode).toBe(0);
    expect(a.stderr).toMatch(/^Imported [^\n]*\n$/); // nothing else to say about a plain file
    expect(await stored()).toEqual(PEOPLE);
    const b = await imp(file("utf8.csv"));
    expect(b.json().summary).toEqual({ rows: 3, added: 0, updated: 0, unchanged: 3, rejected: 0 });
  });

  it("European Excel (; and Windows-1252), tab-separated and | files", async () => {
    const semi = await imp(file("excel-semicolon.csv"), { encoding: "windows-1252" });
    expect(semi.exitCode).toBe(0);
    expect(semi.stderr).toMatch(/fields separated by ";"/);
    expect(semi.stderr).toMatch(/Ignoring 1 column not used by the roster: score\./);
    const tab = await imp(file("tab-separated.tsv"));
    expect(tab.exitCode).toBe(0);
    const pipe = await imp(file("pipe.csv"));
    expect(pipe.exitCode).toBe(0);
    expect(await stored()).toEqual([
      ["pp-1", "Zoë Adams", null, null, true],
      ["pp-2", "Bo, Jr.", null, null, false],
      ["se-1", "Zoë Adams", "zoe@example.com", "@zoe", true],
      ["se-2", "Müller; Jürgen", "jurgen@example.de", null, false],
      ["tb-1", "Zoë Adams", "zoe@example.com", null, true],
      ["tb-2", "Ann, B.", null, null, true],
    ]);
  });

  it("--delimiter overrides the header; a one-column header holding ; says the file looks delimited by it", async () => {
    const r = await imp(file("excel-semicolon.csv"), { encoding: "windows-1252", delimiter: "," });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(
      /has no externalId column: its header is one column, "externalId;name;email;handle;active;score", which looks delimited by ";"/,
    );
    expect((r.thrown as { hint: string }).hint).toBe('Run again with --delimiter ";".');
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("a CRM's headers and Active/Inactive, without flags; a deactivation run changes the status", async () => {
    const r = await imp(file("crm-headers.csv"));
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /Columns: externalId from "Creator ID", name from "Full Name", email from "E-mail", handle from "Instagram", active from "Status"\./,
    );
    expect(await stored()).toEqual([
      ["crm-1", "Amara Okafor", "amara@example.com", "@amaracooks", true],
      ["crm-2", "Priya Evans", "priya@example.co.uk", "@priyaeats", false],
      ["crm-3", "Wei Zhang", "wei@example.com", null, true],
    ]);
    const deactivate = join(tempDir(), "off.csv");
    writeFileSync(deactivate, "Creator ID,Status\r\ncrm-1,Inactive\r\ncrm-3,inactive\r\n");
    const off = await imp(deactivate);
    expect(off.json().summary).toEqual({ rows: 2, added: 0, updated: 2, unchanged: 0, rejected: 0 });
    expect((await creator(s.sb, "crm-1")).active).toBe(false);
  });

  it("every status word, any case; an unknown one is rejected on its line", async () => {
    const r = await imp(file("status-words.csv"));
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected).toEqual([
      {
        line: 14,
        externalId: "sw-13",
        reasons: [
          'active: must be true/false, yes/no, y/n, 1/0, active/inactive, enabled/disabled, or yes/no or active/inactive in Spanish, French, German or Portuguese (found "maybe")',
        ],
      },
    ]);
    const active = new Map((await stored()).map((c) => [c[0], c[4]]));
    const expected = [true, false, true, false, true, false, true, false, true, false, true, false];
    expect(expected.map((_, i) => active.get(`sw-${i + 1}`))).toEqual(expected);
  });

  it("a misplaced quote on line 4 of a small file: exit 2 naming line 4, field 2; nothing stored", async () => {
    const r = await imp(file("misplaced-quote.csv"));
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `${file("misplaced-quote.csv")}: line 4, field 2 (name): a quote inside a field that is not quoted. Nothing was sent.\n` +
        '  4 | mq-3,Tom "The Bomb" Jones,\n' +
        "    |          ^",
    );
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("a misplaced quote in a 50,000-row file with quoted line breaks: the exact physical line", async () => {
    const { text, badLine } = bigMisplacedQuote(50_000, 30_000);
    expect(badLine).toBe(30_030);
    const path = join(tempDir(), "big.csv");
    writeFileSync(path, text);
    const r = await imp(path);
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(
      /big\.csv: line 30030, field 2 \(name\): a quote inside a field that is not quoted\. Nothing was sent\.\n {2}30030 \| big-30000,Tom "The Bomb" Jones/,
    );
    expect(await creatorCount(s.sb)).toBe(0);
    // --dry-run reads in one pass: it reports the rows before and stops at the same line.
    const dry = await imp(path, { dryRun: true });
    expect(dry.exitCode).toBe(2);
    expect(dry.json()).toMatchObject({ complete: false, stoppedAt: { line: 30_030 } });
  }, 120_000);

  it("a quote never closed: the line where it opens (after a quoted cell over two lines)", async () => {
    const r = await imp(file("unclosed-quote.csv"));
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(
      /unclosed-quote\.csv: line 6, field 2 \(name\): a quoted field opens here and is never closed\. Nothing was sent\.\n {2}6 \| uq-4,"Dee,@dee/,
    );
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("blank lines, lines of spaces, all-blank records and trailing empty columns", async () => {
    const r = await imp(file("blank-and-trailing.csv"));
    expect(r.exitCode).toBe(3);
    expect(r.json().summary).toEqual({ rows: 5, added: 3, updated: 0, unchanged: 0, rejected: 2 });
    expect(r.json().rejected).toEqual([
      { line: 7, externalId: "bt-3", reasons: ["row has 2 fields; the header has 5 (missing: email)"] },
      { line: 9, externalId: "bt-5", reasons: ['row has 6 fields; the header has 5 (field 6 is "x")'] },
    ]);
    expect(await stored()).toEqual([
      ["bt-1", "Ann", "ann@example.com", null, true],
      ["bt-2", "Bob", null, null, true],
      ["bt-4", "Dee", null, null, true],
    ]);
  });
});
