// CRM and report export quirks (issue 21 item 3): a | file whose quotes are text (--quote none), two
// columns with one name (chosen by position, --column email=#5), a report's footer after the last
// blank line (skipped, counted, named), and Excel's "sep=;" first line. Files made byte-exactly by
// scripts/make-fixtures.mjs; every import runs against the sandbox over HTTP.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { linksAssignRun } from "../../src/commands/links/assign.js";
import { MAX_HELD } from "../../src/csv/footer.js";
import { mapColumns, parseColumnFlags } from "../../src/csv/headers.js";
import { readIdList } from "../../src/csv/id-list.js";
import { CsvReader, type CsvReadOptions, parseOptions, plainCells } from "../../src/csv/read.js";
import { prng as rng } from "../../src/sandbox/simulate.js";
import { cli } from "../helpers/cli.js";
import { makeCampaign, runFn } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/sandbox.js";
import { creatorCount, errorText, writeTemp, fixtureFile, useEmptyRoster } from "./harness.js";

const file = fixtureFile;

const { s, imp } = useEmptyRoster();

const hint = (r: { thrown: unknown }) => (r.thrown as { hint?: string }).hint ?? "";

/** The stored creators, as [externalId, name, email]. */
async function stored(): Promise<unknown[][]> {
  const r = await s.http("GET", "/creators?pageSize=200");
  return (r.body.items as Record<string, unknown>[])
    .map((c) => [c.externalId, c.name, c.email])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

/** The bytes as a stream of chunks of `size` bytes. */
async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const all = Buffer.from(text);
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

/** What a reading pass hands out (lines and cells) and the footer it skipped. */
async function reading(text: string, chunk = 64 * 1024, o: Partial<CsvReadOptions> = {}) {
  const reader = new CsvReader({ name: "t.csv", ...o });
  const records: { line: number; cells: string[] }[] = [];
  for await (const r of reader.records(chunked(text, chunk))) records.push(r);
  return { records: records.slice(1), footer: reader.footer };
}

/** What a counting pass (cells: "count", the import's first pass) counts, and its footer. */
async function counting(text: string, chunk = 64 * 1024) {
  const reader = new CsvReader({ name: "t.csv" });
  let n = 0;
  let header = true;
  for await (const block of reader.blocks(chunked(text, chunk), { cells: "count" })) {
    if (header) header = false;
    else n += block.length;
  }
  return { count: n + reader.counted, footer: reader.footer };
}

describe("--quote none: a | export whose quotes are text", () => {
  it("without it the file is refused at line 3, and the hint offers --quote none with the line as it would read; nothing stored", async () => {
    const r = await imp(file("crm-pipe-literal-quote.txt"));
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `${file("crm-pipe-literal-quote.txt")}: line 3, field 2 (name): a quote inside a field that is not quoted. Nothing was sent.\n  3 | a-1|Bo "B" Ray|bo@example.com\n    |        ^`,
    );
    expect(hint(r)).toBe(
      'If quotes are ordinary text in this file (usual in |-separated exports), run again with --quote none; line 3 then reads as 3 fields: [a-1] [Bo "B" Ray] [bo@example.com]. Otherwise: put the whole field in quotes and write each quote inside it twice, e.g. "Tom ""The Bomb"" Jones".',
    );
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("with it every name is stored exactly as written, quotes included", async () => {
    const r = await imp(file("crm-pipe-literal-quote.txt"), { quote: "none" });
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.json().summary).toEqual({ rows: 3, added: 3, updated: 0, unchanged: 0, rejected: 0 });
    expect(await stored()).toEqual([
      ["a-0", "Ann Lee", "ann@example.com"],
      ["a-1", 'Bo "B" Ray', "bo@example.com"],
      ["a-2", '"Cy"', "cy@example.com"],
    ]);
  });

  it("a tab file gets the same hint; a , file keeps today's", async () => {
    const tab = await imp(writeTemp('externalId\tname\nt-1\tSay "hi"\n', "t.tsv"));
    expect(tab.exitCode).toBe(2);
    expect(hint(tab)).toMatch(
      /^If quotes are ordinary text in this file \(usual in tab-separated exports\), run again with --quote none; line 2 then reads as 2 fields: \[t-1\] \[Say "hi"\]\./,
    );
    const comma = await imp(file("misplaced-quote.csv"));
    expect(comma.exitCode).toBe(2);
    expect(hint(comma)).toBe(
      'Put the whole field in quotes and write each quote inside it twice, e.g. "Tom ""The Bomb"" Jones".',
    );
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("a line break inside quotes is not kept together: every line end ends a row", async () => {
    const r = await imp(writeTemp('externalId|name\nq-1|"Two\nq-2|Lines"\n'), { quote: "none" });
    expect(r.exitCode).toBe(0);
    expect(await stored()).toEqual([
      ["q-1", '"Two', null],
      ["q-2", 'Lines"', null],
    ]);
  });

  it("--quote with another value is a usage error; nothing stored", async () => {
    const r = await imp(file("crm-pipe-literal-quote.txt"), { quote: "single" });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe('--quote "single" is not double or none.');
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("plainCells with quoting off agrees with csv-parse with quoting off (records holding quotes too)", () => {
    const next = rng(2112);
    const alphabet = ["a", "b", '"', '"', ",", "|", "\t", ";", " ", "\u00a0", "é"];
    let answered = 0;
    for (let n = 0; n < 5000; n++) {
      const d = [",", ";", "\t", "|"][n % 4]!;
      let text = "";
      const len = 1 + Math.floor(next() * 20);
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      text += ["", "\n", "\r\n"][n % 3];
      const mine = plainCells(text, d, false);
      if (mine === undefined) continue;
      answered++;
      expect(mine, JSON.stringify(text)).toEqual(
        (parse(text, parseOptions(d, false, "none")) as string[][])[0] ?? [""],
      );
    }
    expect(answered).toBeGreaterThan(1000);
  });

  it("--ids with --quote none reads an id holding a quote", async () => {
    const dir = tempDir("quirks-ids-");
    const path = join(dir, "ids.txt");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(path, 'externalId|name\nq"1|Bo "B"\nq-2|Cy\n');
    const list = await readIdList(path, new PassThrough(), { quote: "none" });
    expect(list.ids).toEqual(['q"1', "q-2"]);
    const refused = await readIdList(path, new PassThrough()).catch((e: { hint?: string }) => e);
    expect((refused as { hint?: string }).hint).toMatch(
      /^If quotes are ordinary text in this file \(usual in \|-separated exports\), run again with --quote none; line 2 then reads as 2 fields: \[q"1\] \[Bo "B"\]\./,
    );
  });
});

describe("two columns with one name: chosen by position", () => {
  it("without --column: refused, the names are identical, the positions given; nothing stored", async () => {
    const r = await imp(file("duplicate-email-columns.csv"));
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `${file("duplicate-email-columns.csv")} has 2 columns that could be email: "email", "email"; their names are identical (columns 3 and 5).`,
    );
    expect(hint(r)).toBe("Choose one by its position: --column email=#3 or --column email=#5.");
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("--column email=email does not go in a circle: it says the name cannot choose, and gives the positions", async () => {
    const r = await imp(file("duplicate-email-columns.csv"), { column: ["email=email"] });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `--column email=email: ${file("duplicate-email-columns.csv")} has 2 columns named "email" (columns 3 and 5); their names are identical, so the name cannot choose one.`,
    );
    expect(hint(r)).toBe("Choose one by its position: --column email=#3 or --column email=#5.");
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("--column email=#5 reads the work emails; the other email column is named by its position", async () => {
    const r = await imp(file("duplicate-email-columns.csv"), { column: ["email=#5"] });
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    expect(await stored()).toEqual([
      ["de-1", "Dee Park", "dee@work.example"],
      ["de-2", "Eli Roth", "eli@work.example"],
    ]);
    expect(r.stderr).toContain("Ignoring 1 column not used by the roster: email (#3).");
    expect(r.stderr).toContain("Did you mean --column email=#3?");
  });

  it("a position past the last column is a usage error listing the columns by number; nothing stored", async () => {
    const r = await imp(file("duplicate-email-columns.csv"), { column: ["email=#6"] });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `--column email=#6: ${file("duplicate-email-columns.csv")} has 5 columns; there is no column 6.`,
    );
    expect(hint(r)).toBe('Its columns are: #1 "externalId", #2 "name", #3 "email", #4 "handle", #5 "email".');
    const zero = await imp(file("duplicate-email-columns.csv"), { column: ["email=#0"] });
    expect(zero.exitCode).toBe(2);
    expect(errorText(zero)).toMatch(/there is no column 0\.$/);
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("a column literally named #2 wins over the position", () => {
    const m = mapColumns("f.csv", ["externalId", "name", "#2"], parseColumnFlags(["email=#2"]));
    expect(m.index).toEqual({ externalId: 0, name: 1, email: 2 });
    const p = mapColumns("f.csv", ["externalId", "email", "email"], parseColumnFlags(["email=#2"]));
    expect(p.index).toEqual({ externalId: 0, email: 1 });
    expect(p.ignored).toEqual(["email (#3)"]);
  });

  it("--ids: two id columns, one chosen by position; #1 of a one-id-per-line file; #2 of it refused", async () => {
    const dir = tempDir("quirks-ids-");
    const { writeFileSync } = await import("node:fs");
    const csv = join(dir, "ids.csv");
    writeFileSync(csv, "id,name,id\nold-1,Ann,new-1\nold-2,Bo,new-2\n");
    await expect(readIdList(csv, new PassThrough())).rejects.toThrow(
      /their names are identical \(columns 1 and 3\)/,
    );
    expect((await readIdList(csv, new PassThrough(), { column: ["externalId=#3"] })).ids).toEqual([
      "new-1",
      "new-2",
    ]);
    const lines = join(dir, "ids.txt");
    writeFileSync(lines, "externalId\nc-1\nc-2\n");
    expect((await readIdList(lines, new PassThrough(), { column: ["externalId=#1"] })).ids).toEqual([
      "c-1",
      "c-2",
    ]);
    await expect(readIdList(lines, new PassThrough(), { column: ["externalId=#2"] })).rejects.toThrow(
      "--column externalId=#2: " + lines + " is one id per line: it has one column, #1.",
    );
  });
});

const FOOTER_NOTE =
  'Skipped a 3-line footer after the last blank line (lines 5-7: "Grand Totals (2 records)", "© 2026 Acme CRM", "Confidential"); it is not part of the roster.';

describe("a report's footer after the last blank line", () => {
  it("is skipped, counted and named once on stderr; never sent or rejected (exit 0)", async () => {
    const r = await imp(file("report-footer.csv"));
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.json().summary).toEqual({
      rows: 2,
      added: 2,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      footerLines: 3,
    });
    expect(r.json().rejected).toEqual([]);
    expect(r.stderr.split(FOOTER_NOTE)).toHaveLength(2);
    expect(r.stderr).toContain(`Imported ${file("report-footer.csv")}: 2 rows in 1 batch: 2 added`);
    expect(await stored()).toEqual([
      ["rf-1", "Ann Lee", "ann@example.com"],
      ["rf-2", "Bo Ray", "bo@example.com"],
    ]);
  });

  it("--dry-run says so too", async () => {
    const r = await imp(file("report-footer.csv"), { dryRun: true });
    expect(r.exitCode).toBe(0);
    expect(r.json().summary).toEqual({ rows: 2, valid: 2, rejected: 0, footerLines: 3 });
    expect(r.stderr).toContain(FOOTER_NOTE);
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("wrong-count rows after a blank line in the middle are rows: rejected with exact lines in the rejects file", async () => {
    const text = [
      "externalId,name,email",
      "m-1,Ann,",
      "",
      "Subtotal",
      "m-2,Bo,",
      "",
      "Also wrong,x",
      "",
      "m-3,Cy,",
      "",
      "Report end",
      "",
      "m-4,Dee,",
      "",
    ].join("\n");
    const rejects = join(tempDir("quirks-rej-"), "rejects.csv");
    const r = await imp(writeTemp(text), { rejects });
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected.map((x: { line: number }) => x.line)).toEqual([4, 7, 11]);
    expect(r.json().summary).toMatchObject({ rows: 7, added: 4, rejected: 3 });
    expect(r.json().summary.footerLines).toBeUndefined(); // "Report end" has a row after it
    expect(parse(readFileSync(rejects), { relax_column_count: true })).toEqual([
      ["line", "reasons", "externalId", "name", "email"],
      ["4", "row has 1 field; the header has 3 (missing: name, email)", "Subtotal"],
      ["7", "row has 2 fields; the header has 3 (missing: email)", "Also wrong", "x"],
      ["11", "row has 1 field; the header has 3 (missing: name, email)", "Report end"],
    ]);
    expect(await creatorCount(s.sb)).toBe(4);
  });

  it("reader: a footer only at the end; bad rows then more data are rows; both passes agree, in any chunking", async () => {
    const cases: { text: string; lines: number[]; footer?: [number, number] }[] = [
      {
        text: "a,b\nx-1,1\n\nTotal\n© Acme\n",
        lines: [2],
        footer: [4, 5],
      },
      { text: "a,b\nx-1,1\n\nTotal\nx-2,2\n", lines: [2, 4, 5] },
      { text: "a,b\nx-1,1\n\nbad\nworse\n\nx-2,2\nx-3,3\n", lines: [2, 4, 5, 7, 8] },
      { text: "a,b\r\nx-1,1\r\n\r\nbad\r\n\r\nTotals\r\n\r\nx-2,2\r\n", lines: [2, 4, 6, 8] },
      // Blank lines at the very end: nothing follows them, so they do not end the footer.
      { text: "a,b\r\nx-1,1\r\n\r\nbad\r\n\r\nTotals\r\n\r\n\r\n", lines: [2, 4], footer: [6, 6] },
      { text: "a,b\nx-1,1\n\nTotal\n,,\n  \n", lines: [2], footer: [4, 4] },
      { text: 'a,b\nx-1,1\n , \n"Total\nof all"\nEnd', lines: [2], footer: [4, 6] },
      { text: "a,b\nx-1,1\n,\nTotal", lines: [2], footer: [4, 4] },
    ];
    for (const c of cases) {
      for (const chunk of [1, 3, 7, 64 * 1024]) {
        const read = await reading(c.text, chunk);
        expect(
          read.records.map((r) => r.line),
          `${JSON.stringify(c.text)} / ${chunk}`,
        ).toEqual(c.lines);
        expect(read.footer && [read.footer.first, read.footer.last]).toEqual(c.footer);
        const count = await counting(c.text, chunk);
        expect(count.count).toBe(c.lines.length);
        expect(count.footer && [count.footer.first, count.footer.last]).toEqual(c.footer);
      }
    }
  });

  it(`reader: past ${MAX_HELD.toLocaleString("en-US")} held lines they are rows, not a footer (memory stays bounded)`, async () => {
    const bad = Array.from({ length: MAX_HELD + 5 }, (_, i) => `bad ${i}`);
    const text = ["a,b", "x-1,1", "", ...bad, ""].join("\n");
    const read = await reading(text);
    expect(read.footer).toBeUndefined();
    expect(read.records).toHaveLength(MAX_HELD + 6);
    expect(read.records.at(-1)).toEqual({ line: MAX_HELD + 8, cells: [`bad ${MAX_HELD + 4}`] });
    expect((await counting(text)).count).toBe(MAX_HELD + 6);
  });

  it("--ids: footer lines are not read as ids, and the note says so", async () => {
    const notes: string[] = [];
    const list = await readIdList(file("report-footer.csv"), new PassThrough(), {
      note: (l) => notes.push(l),
    });
    expect(list.ids).toEqual(["rf-1", "rf-2"]);
    expect(notes).toContain(
      'Skipped a 3-line footer after the last blank line (lines 5-7: "Grand Totals (2 records)", "© 2026 Acme CRM", "Confidential"); it is not part of the id list.',
    );
  });
});

describe('Excel\'s "sep=;" first line', () => {
  it("sets the delimiter and is not the header (after a UTF-8 BOM)", async () => {
    const r = await imp(file("excel-sep-line.csv"));
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      `Reading ${file("excel-sep-line.csv")} as UTF-8 (byte order mark), fields separated by ";" (its sep= line).`,
    );
    expect(await stored()).toEqual([
      ["sl-1", "Zoë Adams", "zoe@example.com"],
      ["sl-2", "Bo, Jr.", "bo@example.com"],
    ]);
  });

  it("line numbers stay physical: the header is line 2", async () => {
    const r = await imp(writeTemp("sep=|\nexternalId|name|email\ns-1|Ann|not-an-email\n"));
    expect(r.exitCode).toBe(3);
    expect(r.json().rejected).toEqual([
      { line: 3, externalId: "s-1", reasons: [expect.stringMatching(/^email: /)] },
    ]);
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("--delimiter given and different: the flag wins, with a note", async () => {
    const r = await imp(writeTemp("sep=;\r\nexternalId,name\r\ns-1,Ann\r\n"), { delimiter: "," });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      'its first line says sep=;, but --delimiter says ",": fields are read as separated by "," (the flag wins).',
    );
    expect(await stored()).toEqual([["s-1", "Ann", null]]);
  });

  it("--ids: the sep= line names the delimiter and is not an id or the header", async () => {
    expect((await imp(writeTemp("externalId,name\ncr-1,Ann\n"))).exitCode).toBe(0);
    await makeCampaign(s.sb, { externalReference: "camp" });
    const { writeFileSync } = await import("node:fs");
    const ids = join(tempDir("quirks-ids-"), "ids.csv");
    writeFileSync(ids, "sep=;\nName;Creator ID\nAnn;cr-1\n");
    const list = await readIdList(ids, new PassThrough());
    expect(list).toMatchObject({ ids: ["cr-1"], format: "csv" });
    const t = s.context({ globals: { json: true } });
    const r = await runFn(t.ctx, () =>
      linksAssignRun({ campaign: "camp", externalIds: [], ids, quote: "none" }, t.ctx),
    );
    await t.ctx.close();
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    expect(t.stderr()).toContain(
      `${ids}: read 1 id (CSV column "Creator ID", fields separated by ";"): "cr-1".`,
    );
    expect(JSON.parse(t.stdout()).selection).toMatchObject({ identifiersRead: 1, matched: 1 });
  });
});

describe("the flags on the command line (bin/partner-cli.js; run npm run build first)", () => {
  it("roster import --dry-run --quote none --column email=#3: every quirk file read as this file says", async () => {
    const pipe = await cli([
      "roster",
      "import",
      file("crm-pipe-literal-quote.txt"),
      "--dry-run",
      "--quote",
      "none",
    ]);
    expect(pipe.stderr).toContain(
      "3 rows, 3 valid and would be sent in 1 batch, 0 rejected. Nothing was sent.",
    );
    expect(pipe.exitCode).toBe(0);
    const twins = await cli([
      "roster",
      "import",
      file("duplicate-email-columns.csv"),
      "--dry-run",
      "--column",
      "email=#3",
    ]);
    expect(twins.exitCode).toBe(0);
    expect(twins.stderr).toContain("Ignoring 1 column not used by the roster: email (#5).");
    const footer = await cli(["roster", "import", file("report-footer.csv"), "--dry-run", "--json"]);
    expect(footer.exitCode).toBe(0);
    expect(footer.json().summary).toEqual({ rows: 2, valid: 2, rejected: 0, footerLines: 3 });
    expect(footer.stderr).toContain(FOOTER_NOTE);
    const bad = await cli([
      "roster",
      "import",
      file("crm-pipe-literal-quote.txt"),
      "--dry-run",
      "--quote",
      "single",
    ]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--quote "single" is not double or none.');
  });

  it("links assign --quote without --ids is refused like the other reading flags; nothing sent", async () => {
    const r = await cli(["links", "assign", "camp", "cr-1", "--quote", "none", "--sandbox"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "--quote says how to read the --ids file, but no --ids file was given (the creators are EXTERNAL_ID arguments). Nothing was sent.",
    );
  });
});
