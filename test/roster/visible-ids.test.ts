// Identifiers people can see: an externalId with control, invisible or direction-changing
// characters is rejected (line, code point); one not in Unicode NFC is sent with a warning; two ids
// equal in NFC are a repeat. Terminal output shows such characters escaped; JSON keeps them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkRosterRow, mapColumns, rosterRowJson } from "../../src/csv/roster.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { creator, creatorCount } from "./harness.js";

const s = useSandbox({ seed: "empty", resetEach: true });

const NFC = "caf\u00e9";
const NFD = "cafe\u0301";
const FILE = [
  "externalId,name",
  `${NFC},Precomposed`, // line 2
  `${NFD},Decomposed`, // line 3: the same text in NFC as line 2
  "zw\u200bsp,Zero width", // line 4
  "rl\u202eo,Override", // line 5
  "bo\ufeffm,Mark inside", // line 6
  "noe\u0308l,Only decomposed", // line 7
  "\ufeffedge,Trimmed mark", // line 8: a mark at the edge is trimmed, as the service trims it
  "",
].join("\n");

describe("roster import: ids people can see", () => {
  it("rejects invisible and direction-changing characters, warns on NFD, counts NFC repeats", async () => {
    const path = join(tempDir("pcli-ids-"), "ids.csv");
    writeFileSync(path, FILE);
    const rejects = join(tempDir("pcli-ids-"), "rejects.csv");
    const r = await s.run(["roster", "import", path, "--json", "--rejects", rejects]);
    expect(r.exitCode).toBe(3);
    const out = r.json();
    expect(out.rejected).toEqual([
      {
        line: 3,
        externalId: NFD,
        reasons: [
          'externalId: also on line 2, spelled "café" there and "cafe\\u0301" here: the same text in Unicode NFC',
        ],
      },
      {
        line: 4,
        externalId: "zw\u200bsp",
        reasons: ["externalId: holds an invisible character (U+200B ZERO WIDTH SPACE) at position 3"],
      },
      {
        line: 5,
        externalId: "rl\u202eo",
        reasons: [
          "externalId: holds a direction-changing character (U+202E RIGHT-TO-LEFT OVERRIDE) at position 3",
        ],
      },
      {
        line: 6,
        externalId: "bo\ufeffm",
        reasons: ["externalId: holds an invisible character (U+FEFF BYTE ORDER MARK) at position 3"],
      },
    ]);
    expect(out.summary).toEqual({ rows: 7, added: 3, updated: 0, unchanged: 0, rejected: 4 });
    // stderr is for people: the warning, then the rejected rows, invisible characters escaped.
    expect(r.stderr.split("\n").slice(0, 5)).toEqual([
      'line 7: externalId "noe\\u0308l" is not in Unicode NFC (U+0308 COMBINING DIAERESIS); sent as it is (the service compares ids exactly).',
      `line 3 (${NFD}): externalId: also on line 2, spelled "café" there and "cafe\\u0301" here: the same text in Unicode NFC`,
      "line 4 (zw\\u200bsp): externalId: holds an invisible character (U+200B ZERO WIDTH SPACE) at position 3",
      "line 5 (rl\\u202eo): externalId: holds a direction-changing character (U+202E RIGHT-TO-LEFT OVERRIDE) at position 3",
      "line 6 (bo\\ufeffm): externalId: holds an invisible character (U+FEFF BYTE ORDER MARK) at position 3",
    ]);
    // The rejects file is data: the exact bytes of the cells.
    expect(readFileSync(rejects, "utf8")).toBe(
      [
        "line,reasons,externalId,name",
        `3,"externalId: also on line 2, spelled ""café"" there and ""cafe\\u0301"" here: the same text in Unicode NFC",${NFD},Decomposed`,
        "4,externalId: holds an invisible character (U+200B ZERO WIDTH SPACE) at position 3,zw\u200bsp,Zero width",
        "5,externalId: holds a direction-changing character (U+202E RIGHT-TO-LEFT OVERRIDE) at position 3,rl\u202eo,Override",
        "6,externalId: holds an invisible character (U+FEFF BYTE ORDER MARK) at position 3,bo\ufeffm,Mark inside",
        "",
      ].join("\n"),
    );
    // Sent as written: the NFD id is its own creator, exactly as in the file.
    expect((await creator(s.sb, "noe\u0308l"))?.name).toBe("Only decomposed");
    expect(await creator(s.sb, "no\u00ebl")).toBeUndefined();
    expect((await creator(s.sb, NFC))?.name).toBe("Precomposed");
    expect((await creator(s.sb, "edge"))?.name).toBe("Trimmed mark");
    expect(await creatorCount(s.sb)).toBe(3);
  });

  it("the fast row path never accepts what the full check rejects", () => {
    const map = mapColumns("x", ["externalId", "name"], new Map(), {});
    for (const id of ["zw\u200bsp", "rl\u202eo", "bo\ufeffm", "c1\u0085x", "tab\there", "lrm\u200e"]) {
      const out: string[] = [];
      expect(rosterRowJson([id, "N"], map, false, out), id).toBeUndefined();
      expect(out).toEqual([]);
      expect(checkRosterRow([id, "N"], map, { clearEmpty: false }).reasons, id).toHaveLength(1);
    }
  });
});

describe("terminal output escapes, data keeps the text", () => {
  it("roster list: escaped in the table, exact in JSON and TSV", async () => {
    await s.http("PUT", `/creators/${encodeURIComponent("evil\u202eid")}`, {
      body: { name: "Rtl\u200bName" },
    });
    const table = await s.run(["roster", "list"], { tty: true, env: { COLUMNS: "100" } });
    expect(table.exitCode).toBe(0);
    const row = table.stdout.split("\n").find((l) => l.startsWith("evil"));
    expect(row).toMatch(/^evil\\u202eid {2}Rtl\\u200bName {2}/);
    expect(table.stdout).not.toMatch(/[\u202e\u200b]/);

    const json = await s.run(["roster", "list", "--json"]);
    expect(json.json()[0]).toMatchObject({ externalId: "evil\u202eid", name: "Rtl\u200bName" });
    const tsv = await s.run(["roster", "list"]);
    expect(tsv.stdout.split("\n")[1]!.startsWith("evil\u202eid\tRtl\u200bName\t")).toBe(true);

    const record = await s.run(["roster", "get", "evil\u202eid"], { tty: true, env: { COLUMNS: "100" } });
    expect(record.stdout).toContain("externalId  evil\\u202eid\n");
  });

  it("an error naming such an id shows it escaped; with --json the message is exact", async () => {
    const r = await s.run(["roster", "get", "x\u202ey"]);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('No creator "x\\u202ey" on the roster');
    expect(r.stderr).not.toContain("\u202e");
    const j = await s.run(["roster", "get", "x\u202ey", "--json"]);
    expect(JSON.parse(j.stderr).error.hint).toContain('No creator "x\u202ey"');
  });

  it("links assign --ids: refused with the line and code point, escaped; NFD warned", async () => {
    const path = join(tempDir("pcli-ids-"), "ids.txt");
    writeFileSync(path, "noe\u0308l\nx\u202ey\n");
    const r = await s.run(["links", "assign", "any-campaign", "--ids", path]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `Error: ${path} holds 1 invalid externalId:\n  line 2: "x\\u202ey" holds a direction-changing character (U+202E RIGHT-TO-LEFT OVERRIDE) at position 2`,
    );
    expect(r.stderr).not.toContain("\u202e");

    writeFileSync(path, "noe\u0308l\n");
    const warned = await s.run(["links", "assign", "any-campaign", "--ids", path]);
    expect(warned.stderr).toContain(
      `line 1: externalId "noe\\u0308l" is not in Unicode NFC (U+0308 COMBINING DIAERESIS); sent as it is.`,
    );
  });
});
