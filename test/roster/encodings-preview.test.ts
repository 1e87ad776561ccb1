import { beforeEach, describe, expect, it } from "vitest";
import { visibleLine } from "../../src/io/visible.js";
import { errorText, writeTemp, fixtureFile, useEmptyRoster } from "./harness.js";

const file = fixtureFile;
const CP1252 = file("cp1252-quotes.csv");
const MAC = file("mac-roman-cr.csv");

const { s, imp } = useEmptyRoster();

/** Everything the sandbox holds about creators, in id order. */
async function everything(): Promise<Record<string, unknown>[]> {
  const r = await s.http("GET", "/creators?pageSize=200");
  return (r.body.items as Record<string, unknown>[]).sort((a, b) =>
    String(a.externalId).localeCompare(String(b.externalId)),
  );
}

/** The stored creators, as [externalId, name, email, handle, active]. */
async function stored(): Promise<unknown[][]> {
  return (await everything()).map((c) => [c.externalId, c.name, c.email, c.handle, c.active]);
}

/** The roster before each case: three creators from a plain UTF-8 file. */
let before: Record<string, unknown>[];
beforeEach(async () => {
  expect((await imp(file("utf8.csv"))).exitCode).toBe(0);
  before = await everything();
  expect(before).toHaveLength(3);
});

/** The cells of an excerpt's line ("  2 | a,b,c"), as the preview shows them. */
const previewCells = (message: string, line: number) => {
  const shown = message.split("\n").find((l) => l.startsWith(`  ${line} | `));
  return shown!.slice(`  ${line} | `.length).split(",");
};

describe("the not-UTF-8 preview is what the import reads", () => {
  it("Windows-1252 with ’ “ ” €: the preview shows ’, and the import stores those very bytes", async () => {
    const refused = await imp(CP1252);
    expect(refused.exitCode).toBe(2);
    expect(errorText(refused)).toBe(
      `${CP1252}: line 2, field 2 (name): bytes that are not UTF-8 (byte 11 of the line). Nothing was sent.\n` +
        "Read as Windows-1252, line 2 is:\n" +
        "  2 | cq-1,Siobhán O’Brien,siobhan@example.ie,@siobhan,true\n" +
        "    |           ^",
    );
    expect((refused.thrown as { hint: string }).hint).toBe(
      `If it reads right, run again with --encoding windows-1252 (Excel's "CSV" on Windows writes that), or save the file as "CSV UTF-8". Other encodings: --encoding latin1, iso-8859-15, shift_jis, ...`,
    );
    // On a terminal (main.ts shows every message line through visibleLine): no \u0092 escape.
    expect(visibleLine(errorText(refused))).toContain("Siobhán O’Brien");
    expect(await everything()).toEqual(before);

    const ok = await imp(CP1252, { encoding: "windows-1252" });
    expect(ok.exitCode).toBe(0);
    expect(ok.json().summary).toEqual({ rows: 3, added: 3, updated: 0, unchanged: 0, rejected: 0 });
    const rows = await stored();
    expect(rows.filter((r) => String(r[0]).startsWith("cq-"))).toEqual([
      ["cq-1", "Siobhán O’Brien", "siobhan@example.ie", "@siobhan", true],
      ["cq-2", "Zoë “Zo” Adams", "zo@example.com", "@zo", true],
      ["cq-3", "Café € Owner", "cafe@example.fr", null, false],
    ]);
    const [id, name, email, handle] = previewCells(errorText(refused), 2);
    const saved = rows.find((r) => r[0] === id)!;
    expect(Buffer.from(String(saved[1])).equals(Buffer.from(name!))).toBe(true);
    expect([saved[2], saved[3]]).toEqual([email, handle]);
  });

  it("a classic Mac file (Mac Roman, CR line ends): --encoding macintosh suggested first, the line previewed as Mac Roman", async () => {
    const refused = await imp(MAC);
    expect(refused.exitCode).toBe(2);
    expect(errorText(refused)).toBe(
      `${MAC}: line 2, field 2 (name): bytes that are not UTF-8 (byte 8 of the line). Nothing was sent.\n` +
        "Read as Mac Roman (macintosh), line 2 is:\n" +
        "  2 | mr-1,Zoë Adams,zoe@example.com,@zoe,true\n" +
        "    |        ^",
    );
    expect((refused.thrown as { hint: string }).hint).toBe(
      `Its lines end in CR only, as classic Mac files do: if it reads right, run again with --encoding macintosh; else try --encoding windows-1252 (Excel's "CSV" on Windows), or save the file as "CSV UTF-8".`,
    );
    expect(await everything()).toEqual(before);

    const ok = await imp(MAC, { encoding: "macintosh" });
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr).toMatch(
      /Reading .*mac-roman-cr\.csv as macintosh \(--encoding\), fields separated by ","/,
    );
    const rows = await stored();
    expect(rows.filter((r) => String(r[0]).startsWith("mr-"))).toEqual([
      ["mr-1", "Zoë Adams", "zoe@example.com", "@zoe", true],
      ["mr-2", "François Müller", "francois@example.fr", "@fmuller", true],
      ["mr-3", "José Núñez", "jose@example.es", null, false],
    ]);
    const name = previewCells(errorText(refused), 2)[1]!;
    expect(Buffer.from(name).equals(Buffer.from("Zoë Adams"))).toBe(true);
  });
});

describe("a control character only a wrong encoding makes", () => {
  it("the Mac file as windows-1252: refused on line 3 (ç is U+008D there), nothing sent, the roster as it was", async () => {
    const r = await imp(MAC, { encoding: "windows-1252" });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `${MAC}: line 3, field 2 (name): U+008D, a control character, after decoding as windows-1252: the file is probably not windows-1252. Nothing was sent.\n` +
        "  3 | mr-2,Fran\u008dois MŸller,francois@example.fr,@fmuller,true\n" +
        "    |          ^",
    );
    expect((r.thrown as { hint: string }).hint).toBe(
      "Its lines end in CR only, as classic Mac files do: run again with --encoding macintosh.",
    );
    // On a terminal the control character shows as its escape.
    expect(visibleLine(errorText(r))).toContain("  3 | mr-2,Fran\\u008dois MŸller,");
    expect(await everything()).toEqual(before);
  });

  it("--dry-run stops at the same line and sends nothing", async () => {
    const r = await imp(MAC, { encoding: "windows-1252", dryRun: true });
    expect(r.exitCode).toBe(2);
    expect(errorText(r).split("\n")[0]).toBe(
      `${MAC}: line 3, field 2 (name): U+008D, a control character, after decoding as windows-1252: the file is probably not windows-1252. The import stopped there: no rows were sent.`,
    );
    expect(r.json()).toMatchObject({ complete: false, dryRun: true, stoppedAt: { line: 3 } });
    expect(await everything()).toEqual(before);
  });

  it("an undefined Windows-1252 byte (0x81) in an LF file: the hint names other encodings", async () => {
    const path = writeTemp(Buffer.from("externalId,name\nu-1,Ann\nu-2,B\x81o\n", "latin1"));
    const r = await imp(path, { encoding: "latin1" });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `${path}: line 3, field 2 (name): U+0081, a control character, after decoding as windows-1252: the file is probably not windows-1252. Nothing was sent.\n` +
        "  3 | u-2,B\u0081o\n" +
        "    |      ^",
    );
    expect((r.thrown as { hint: string }).hint).toBe(
      'Run again with the encoding the file was saved in (--encoding windows-1250, iso-8859-15, macintosh, ...), or save it as "CSV UTF-8" and drop --encoding.',
    );
    expect(await everything()).toEqual(before);
  });
});

describe("--dry-run shows the first rows as they would be sent", () => {
  it("--json: a `sample` of the request body's items; on stderr, a table of them; stdout holds only the JSON", async () => {
    const r = await imp(CP1252, { encoding: "windows-1252", dryRun: true });
    expect(r.exitCode).toBe(0);
    expect(r.json()).toEqual({
      rejected: [],
      batches: [{ firstLine: 2, lastLine: 4, rows: 3 }],
      summary: { rows: 3, valid: 3, rejected: 0 },
      dryRun: true,
      sample: [
        {
          externalId: "cq-1",
          name: "Siobhán O’Brien",
          email: "siobhan@example.ie",
          handle: "@siobhan",
          active: true,
        },
        { externalId: "cq-2", name: "Zoë “Zo” Adams", email: "zo@example.com", handle: "@zo", active: true },
        { externalId: "cq-3", name: "Café € Owner", email: "cafe@example.fr", active: false },
      ],
      complete: true,
    });
    expect(r.stderr).toContain(
      "The 3 rows that would be sent:\n" +
        "  externalId  name             email               handle    active\n" +
        "  cq-1        Siobhán O’Brien  siobhan@example.ie  @siobhan  true\n" +
        "  cq-2        Zoë “Zo” Adams   zo@example.com      @zo       true\n" +
        "  cq-3        Café € Owner     cafe@example.fr               false\n" +
        `Dry run of ${CP1252}: 3 rows, 3 valid and would be sent in 1 batch, 0 rejected. Nothing was sent.\n`,
    );
    expect(await everything()).toEqual(before);
  });

  it("without --json: the table on stderr, nothing on stdout; the first 5 valid rows only, across batches; --clear-empty's null shows as -", async () => {
    const lines = ["externalId,name,email"];
    for (let i = 1; i <= 8; i++) lines.push(i === 2 ? "d-2,Bad,not-an-email" : `d-${i},Zoë ${i},`);
    const path = writeTemp(`${lines.join("\n")}\n`);
    const r = await imp(path, { dryRun: true, batchSize: 2, clearEmpty: true }, false);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "The first 5 of 7 rows that would be sent:\n" +
        "  externalId  name   email\n" +
        "  d-1         Zoë 1  -\n" +
        "  d-3         Zoë 3  -\n" +
        "  d-4         Zoë 4  -\n" +
        "  d-5         Zoë 5  -\n" +
        "  d-6         Zoë 6  -\n" +
        `Dry run of ${path}: 8 rows, 7 valid and would be sent in 4 batches, 1 rejected. Nothing was sent.\n`,
    );
    expect(await everything()).toEqual(before);
  });

  it("the Mac file with --encoding macintosh: Zoë is Zoë before anything is sent", async () => {
    const r = await imp(MAC, { encoding: "macintosh", dryRun: true });
    expect(r.exitCode).toBe(0);
    const sample = r.json().sample as { name: string }[];
    expect(sample.map((i) => i.name)).toEqual(["Zoë Adams", "François Müller", "José Núñez"]);
    expect(await everything()).toEqual(before);
  });
});
