import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import {
  checkBomForAppend,
  formatCsv,
  openCsvSink,
  UTF8_BOM,
  unescapeFormulaCell,
} from "../../src/csv/write.js";
import { exitCodeFor } from "../../src/main.js";
import { tempDir } from "../helpers/sandbox.js";

describe("formatCsv", () => {
  it("writes a header row and keeps identifiers as text", () => {
    const text = formatCsv([["00123", "0042", 7, true, null]], ["id", "code", "n", "flag", "empty"]);
    expect(text).toBe("id,code,n,flag,empty\n00123,0042,7,true,\n");
  });

  it("escapes formula-like cells and the escape can be undone", () => {
    const cells = ["=1+1", "+1", "-x", "@maria", "\tx", "'=already", "''@two", "plain", "it's"];
    const text = formatCsv([cells]);
    const back = (parse(text) as string[][])[0]!;
    expect(back.slice(0, 5)).toEqual(["'=1+1", "'+1", "'-x", "'@maria", "'\tx"]);
    expect(back.map(unescapeFormulaCell)).toEqual(cells);
  });

  it("does not escape negative numbers given as numbers", () => {
    expect(formatCsv([[-5, "-5"]])).toBe("-5,'-5\n");
  });

  it("quotes CR, LF, quotes and commas inside cells", () => {
    const cells = ["a\nb", "c\rd", 'say "hi"', "x,y", "e\r\nf"];
    const text = formatCsv([cells]);
    expect(text).toBe('"a\nb","c\rd","say ""hi""","x,y","e\r\nf"\n');
    expect(parse(text)).toEqual([cells]);
  });
});

describe("openCsvSink", () => {
  it("writes a file through a temporary name and renames it on commit", async () => {
    const dir = tempDir();
    const path = join(dir, "out.csv");
    const sink = await openCsvSink(path, ["a", "b"], new PassThrough());
    await sink.write([["1", "2"]]);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(readdirSync(dir)[0]).not.toBe("out.csv");
    await sink.commit();
    expect(readdirSync(dir)).toEqual(["out.csv"]);
    expect(readFileSync(path, "utf8")).toBe("a,b\n1,2\n");
  });

  it("abort leaves no file and keeps an existing one untouched", async () => {
    const dir = tempDir();
    const path = join(dir, "out.csv");
    const first = await openCsvSink(path, ["a"], new PassThrough());
    await first.commit();
    const sink = await openCsvSink(path, ["a"], new PassThrough());
    await sink.write([["x"]]);
    await sink.abort();
    expect(readdirSync(dir)).toEqual(["out.csv"]);
    expect(readFileSync(path, "utf8")).toBe("a\n");
  });

  it("writes to stdout for '-'", async () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c) => {
      text += c;
    });
    const sink = await openCsvSink("-", ["a"], out);
    await sink.write([["=x"]]);
    await sink.commit();
    expect(text).toBe("a\n'=x\n");
  });

  it("a folder as the target is a usage error before anything is written", async () => {
    const dir = tempDir();
    await expect(openCsvSink(dir, ["a"], new PassThrough())).rejects.toThrow(/it is a folder/);
  });

  it("a folder that does not exist is a usage error", async () => {
    await expect(openCsvSink(join(tempDir(), "nope", "x.csv"), ["a"], new PassThrough())).rejects.toThrow(
      /Cannot write .*folder does not exist/,
    );
  });
});

describe("openCsvSink: BOM and file mode", () => {
  const rows = [["Chloé", "0012345000011"]];
  async function written(o: { bom?: boolean }): Promise<Buffer> {
    const path = join(tempDir(), "out.csv");
    const sink = await openCsvSink(path, ["name", "code"], new PassThrough(), o);
    await sink.write(rows);
    await sink.commit();
    return readFileSync(path);
  }

  it("--bom: the file starts with EF BB BF and is otherwise the same CSV", async () => {
    const plain = await written({});
    const bom = await written({ bom: true });
    expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bom.subarray(3).equals(plain)).toBe(true);
    expect(plain.toString("utf8")).toBe("name,code\nChloé,0012345000011\n");
    expect([...plain.subarray(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
  });

  it("--bom on stdout: the BOM comes first, once", async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on("data", (c) => chunks.push(Buffer.from(c)));
    const sink = await openCsvSink("-", ["a"], out, { bom: true });
    await sink.write([["é"]]);
    await sink.write([["è"]]);
    await sink.commit();
    expect(Buffer.concat(chunks).toString("utf8")).toBe(`${UTF8_BOM}a\né\nè\n`);
  });

  it("a new file is created 0600 whatever the umask", async () => {
    const old = process.umask(0o000);
    try {
      const path = join(tempDir(), "private.csv");
      const sink = await openCsvSink(path, ["email"], new PassThrough());
      await sink.write([["maria@example.com"]]);
      await sink.commit();
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  it("an existing file keeps its mode when replaced", async () => {
    const path = join(tempDir(), "shared.csv");
    writeFileSync(path, "old\n");
    chmodSync(path, 0o640);
    const sink = await openCsvSink(path, ["a"], new PassThrough());
    await sink.write([["new"]]);
    await sink.commit();
    expect(readFileSync(path, "utf8")).toBe("a\nnew\n");
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });
});

describe("checkBomForAppend (an appending export with --bom)", () => {
  it("a missing or empty file gets the BOM; a file that starts with one is appended to", async () => {
    const dir = tempDir();
    expect(await checkBomForAppend(join(dir, "missing.csv"))).toBe(false);
    writeFileSync(join(dir, "empty.csv"), "");
    expect(await checkBomForAppend(join(dir, "empty.csv"))).toBe(false);
    writeFileSync(join(dir, "bom.csv"), `${UTF8_BOM}a\n1\n`);
    expect(await checkBomForAppend(join(dir, "bom.csv"))).toBe(true);
  });

  it("a file with rows and no BOM is refused (exit 2), its bytes unchanged", async () => {
    const path = join(tempDir(), "old.csv");
    writeFileSync(path, "a\n1\n");
    const err = await checkBomForAppend(path).catch((e: unknown) => e);
    expect(exitCodeFor(err)).toBe(2);
    expect(String(err)).toMatch(/already has content without a BOM/);
    expect(readFileSync(path, "utf8")).toBe("a\n1\n");
  });
});
