// The first pass of an import (CsvReader.blocks with cells: false) only checks the file and counts
// its records: it must count exactly the records the second pass hands out, and refuse exactly what
// the second pass refuses. A --dry-run that meets a broken record reports every row before it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CsvFileError, CsvReader } from "../../src/csv/read.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

async function* bytes(text: string, chunk = 7): AsyncGenerator<Uint8Array> {
  const all = Buffer.from(text);
  for (let i = 0; i < all.length; i += chunk) yield all.subarray(i, i + chunk);
}

async function lines(text: string, cells: boolean): Promise<number[]> {
  const out: number[] = [];
  for await (const block of new CsvReader({ name: "t.csv" }).blocks(bytes(text), { cells }))
    for (const r of block) out.push(r.line);
  return out.sort((a, b) => a - b);
}

/** The records after the header a counting pass finds (`cells: "count"`): handed out + counted. */
async function counted(text: string, chunk = 7): Promise<number> {
  const reader = new CsvReader({ name: "t.csv" });
  let n = 0;
  let header = true;
  for await (const block of reader.blocks(bytes(text, chunk), { cells: "count" })) {
    if (header) header = false;
    else n += block.length;
  }
  return n + reader.counted;
}

async function failure(text: string, cells: boolean | "count"): Promise<string> {
  try {
    if (cells === "count") await counted(text);
    else await lines(text, cells);
  } catch (err) {
    if (err instanceof CsvFileError) return err.message;
    throw err;
  }
  return "no error";
}

const TRICKY = [
  "externalId,name,email",
  "a-1,Ann,ann@example.com",
  "",
  "   ",
  ",,",
  " , ,\t",
  'a-2,"Bob\nthe second",',
  '"",""," "',
  "a-3,Cy \u00a0,",
  "\u00a0,,",
  'a-4,"Dee, ""D""",d@example.com\r',
  "a-5,Eve,\r\n",
  ",Fay,",
].join("\n");

describe("the checking pass", () => {
  it("counts exactly the records the reading pass hands out (blank lines and all-blank records skipped)", async () => {
    const read = await lines(TRICKY, true);
    expect(read).toEqual([1, 2, 7, 10, 12, 13, 15]);
    expect(await lines(TRICKY, false)).toEqual(read);
  });

  it("refuses a broken record with the same message as the reading pass", async () => {
    const broken = `${TRICKY}\na-6,Tom "T" Jones,\na-7,Ok,\n`;
    const message = await failure(broken, true);
    expect(message).toMatch(
      /^t\.csv: line 16, field 2 \(name\): a quote inside a field that is not quoted\./,
    );
    expect(await failure(broken, false)).toBe(message);
    expect(await failure(broken, "count")).toBe(message);
  });

  it('the counting pass (cells: "count") counts what the reading pass hands out, in any chunking', async () => {
    const plain = [
      "externalId,name,email",
      ...Array.from({ length: 300 }, (_, i) =>
        i % 17 === 0 ? "" : i % 23 === 0 ? " ,\t, " : `p-${i},N ${i},`,
      ),
      "\u00a0,,",
      ",,",
      `long-${"x".repeat(20_000)},y,`,
      "last,no line end,",
    ].join("\n");
    for (const text of [TRICKY, plain, `${plain}\n`, `${plain}\n${TRICKY}`, `${TRICKY}\n${plain}`]) {
      const read = (await lines(text, true)).length - 1;
      for (const chunk of [1, 7, 64, 4096, 1 << 20])
        expect(await counted(text, chunk), `chunk ${chunk}`).toBe(read);
    }
  });

  it("the counting pass refuses what the reading pass refuses, after plain lines too", async () => {
    const head = Array.from({ length: 500 }, (_, i) => `p-${i},N ${i},`).join("\n");
    for (const bad of ['x,"open quote,\ny,z,', 'x,a"b,', `x,${"y".repeat(70_000)},`]) {
      const text = `externalId,name,email\n${head}\n${bad}\n`;
      const message = await failure(text, true);
      expect(message).not.toBe("no error");
      expect(await failure(text, "count")).toBe(message);
    }
  });
});

describe("roster import --dry-run on a broken record", () => {
  const s = useSandbox({ seed: "empty" });

  it("reports every row before the broken line, then stops there (exit 2)", async () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => `d-${i},Name ${i},`);
    const file = join(tempDir(), "broken.csv");
    writeFileSync(file, `externalId,name,email\n${rows.join("\n")}\nd-x,Tom "T" Jones,\nd-y,After,\n`);
    const r = await s.run(["roster", "import", file, "--dry-run", "--json"]);
    expect(r.exitCode).toBe(2);
    const out = r.json();
    expect(out.summary).toEqual({ rows: 2_000, valid: 2_000, rejected: 0 });
    expect(out.batches.at(-1)).toMatchObject({ lastLine: 2_001 });
    expect(out).toMatchObject({ complete: false, stoppedAt: { line: 2_002 } });
    expect(r.stderr).toMatch(
      /broken\.csv: line 2002, field 2 \(name\): a quote inside a field that is not quoted\./,
    );
  });
});
