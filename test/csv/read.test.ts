import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CsvFileError, firstInvalidUtf8, readCsvRecords } from "../../src/csv/read.js";
import { tempDir } from "../helpers/sandbox.js";

async function readAll(content: string | Buffer): Promise<{ line: number; cells: string[] }[]> {
  const path = join(tempDir(), "in.csv");
  writeFileSync(path, content);
  const out = [];
  for await (const r of readCsvRecords(path)) out.push(r);
  return out;
}

async function readError(content: string | Buffer): Promise<CsvFileError> {
  try {
    await readAll(content);
  } catch (err) {
    return err as CsvFileError;
  }
  throw new Error("expected an error");
}

describe("readCsvRecords", () => {
  it("gives the physical start line of each record: BOM, CRLF, embedded newlines, blank lines", async () => {
    const text =
      '\ufeffa,b\r\n1,"x\r\ny"\r\n\r\n   \r\n2,z\r\n"3","q\nr\ns"\n4,w\n,\n5,"say ""hi"", ok"\n6,last';
    const recs = await readAll(text);
    expect(recs).toEqual([
      { line: 1, cells: ["a", "b"] },
      { line: 2, cells: ["1", "x\r\ny"] },
      { line: 6, cells: ["2", "z"] },
      { line: 7, cells: ["3", "q\nr\ns"] },
      { line: 10, cells: ["4", "w"] },
      { line: 12, cells: ["5", 'say "hi", ok'] },
      { line: 13, cells: ["6", "last"] },
    ]);
  });

  it("ignores spaces around fields, quoted or not, and keeps spaces inside quotes", async () => {
    const recs = await readAll('a,b,c\nx-1, "Evans, Priya" ,  @p  \nx-2,"  kept  ",z\n');
    expect(recs.map((r) => r.cells)).toEqual([
      ["a", "b", "c"],
      ["x-1", "Evans, Priya", "@p"],
      ["x-2", "  kept  ", "z"],
    ]);
  });

  it("text after a closing quote is a syntax error naming the line", async () => {
    const err = await readError('a,b\n1,ok\n2,"ab" c\n');
    expect(err.message).toMatch(/line 3 has a misplaced quote \(text right after a closing quote\)/);
  });

  it("keeps line numbers right across chunk boundaries (multi-byte characters split)", async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `id-${i},Zoë ${"é".repeat(i % 17)} 张伟`);
    const recs = await readAll(`externalId,name\n${rows.join("\n")}\n`);
    expect(recs).toHaveLength(5001);
    expect(recs[4321]).toEqual({ line: 4322, cells: ["id-4320", `Zoë ${"é".repeat(4320 % 17)} 张伟`] });
  });

  it("rejects invalid UTF-8 naming the line", async () => {
    const bytes = Buffer.concat([Buffer.from("a,b\n1,ok\n2,"), Buffer.from([0xe9]), Buffer.from("t\n")]);
    const err = await readError(bytes);
    expect(err).toBeInstanceOf(CsvFileError);
    expect(err.message).toMatch(/not valid UTF-8.*line 3/);
    expect(err.line).toBe(3);
  });

  it("recognizes UTF-16", async () => {
    const err = await readError(Buffer.from("\ufeffa,b\n", "utf16le"));
    expect(err.message).toMatch(/UTF-16/);
  });

  it("an unclosed quote names the line where its record starts", async () => {
    const err = await readError('a,b\n1,ok\n2,"open\n3,more\n4,end\n');
    expect(err.message).toMatch(/line 3 opens a quoted field that is never closed/);
    expect(err.line).toBe(3);
  });

  it("a record over 64 KiB names its line", async () => {
    const err = await readError(`a,b\n1,ok\n2,${"x".repeat(70_000)}\n`);
    expect(err.message).toMatch(/line 3 is longer than 64 KiB/);
  });

  it("a stray quote is a syntax error naming the line", async () => {
    const err = await readError('a,b\n1,ok\n2,ab"c\n');
    expect(err.message).toMatch(/line 3 has a misplaced quote/);
  });

  it("a missing file is a usage error", async () => {
    const it = readCsvRecords(join(tempDir(), "missing.csv"));
    await expect(it.next()).rejects.toThrow(/Cannot read .*no such file/);
  });

  it("firstInvalidUtf8 finds overlongs, surrogates and truncation", () => {
    expect(firstInvalidUtf8(Buffer.from("héllo 张"))).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xe5, 0xbc]))).toBe(2);
  });
});
