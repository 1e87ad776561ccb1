import { describe, expect, it } from "vitest";
import { checkEncoding } from "../../src/csv/decode.js";
import {
  type CsvFileError,
  type CsvReadOptions,
  CsvReader,
  type CsvRecord,
  detectDelimiter,
  excerpt,
  parseDelimiter,
} from "../../src/csv/read.js";

/** The bytes as a stream of chunks of `size` bytes (small sizes cut characters and line ends apart). */
async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function readAll(
  content: string | Buffer,
  o: Partial<CsvReadOptions> & { chunk?: number } = {},
): Promise<CsvRecord[]> {
  const bytes = typeof content === "string" ? Buffer.from(content) : content;
  const reader = new CsvReader({ name: "in.csv", ...o });
  const out: CsvRecord[] = [];
  for await (const r of reader.records(chunked(bytes, o.chunk ?? 64 * 1024))) out.push(r);
  return out;
}

async function readError(content: string | Buffer, o: Partial<CsvReadOptions> & { chunk?: number } = {}) {
  try {
    await readAll(content, o);
  } catch (err) {
    return err as CsvFileError;
  }
  throw new Error("expected an error");
}

describe("CsvReader: records and their physical lines", () => {
  const text =
    '\ufeffa,b\r\n1,"x\r\ny"\r\n\r\n   \r\n2,z\r\n"3","q\nr\ns"\n4,w\n,\n5,"say ""hi"", ok"\r6,last';
  const expected = [
    { line: 1, cells: ["a", "b"] },
    { line: 2, cells: ["1", "x\r\ny"] },
    { line: 6, cells: ["2", "z"] },
    { line: 7, cells: ["3", "q\nr\ns"] },
    { line: 10, cells: ["4", "w"] },
    { line: 12, cells: ["5", 'say "hi", ok'] },
    { line: 13, cells: ["6", "last"] },
  ];

  it("BOM, CRLF, LF and CR line ends, quoted line breaks, blank lines and all-blank records", async () => {
    expect(await readAll(text)).toEqual(expected);
  });

  it("gives the same records whatever the chunk size (characters and CRLF cut across chunks)", async () => {
    for (const chunk of [1, 2, 3, 5, 7]) expect(await readAll(text, { chunk })).toEqual(expected);
  });

  it("ignores spaces around fields, quoted or not, and keeps spaces inside quotes", async () => {
    const recs = await readAll('a,b,c\nx-1, "Evans, Priya" ,  @p  \nx-2,"  kept  ",z\n');
    expect(recs.map((r) => r.cells)).toEqual([
      ["a", "b", "c"],
      ["x-1", "Evans, Priya", "@p"],
      ["x-2", "  kept  ", "z"],
    ]);
  });

  it("keeps line numbers right across many blocks with multi-byte characters", async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `id-${i},Zoë ${"é".repeat(i % 17)} 张伟`);
    const recs = await readAll(`externalId,name\n${rows.join("\n")}\n`, { chunk: 4093 });
    expect(recs).toHaveLength(5001);
    expect(recs[4321]).toEqual({ line: 4322, cells: ["id-4320", `Zoë ${"é".repeat(4320 % 17)} 张伟`] });
  });

  it("a million blank lines are skipped without records", async () => {
    const recs = await readAll(`externalId,name\n${"\n".repeat(1_000_000)}x,y\n`);
    expect(recs).toEqual([
      { line: 1, cells: ["externalId", "name"] },
      { line: 1_000_002, cells: ["x", "y"] },
    ]);
  });
});

describe("CsvReader: encodings", () => {
  const rows = "externalId,name\nw-1,Zoë Müller\nw-2,José\n";
  const cells = [
    ["externalId", "name"],
    ["w-1", "Zoë Müller"],
    ["w-2", "José"],
  ];
  const utf16be = (s: string) => {
    const le = Buffer.from(s, "utf16le");
    for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
    return le;
  };

  it("UTF-8 with and without a BOM, UTF-16 LE and BE by their BOM, in any chunk size", async () => {
    const files = [
      Buffer.from(rows),
      Buffer.from(`\ufeff${rows}`),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rows, "utf16le")]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(rows)]),
    ];
    for (const f of files)
      for (const chunk of [1, 3, 64 * 1024])
        expect((await readAll(f, { chunk })).map((r) => r.cells)).toEqual(cells);
  });

  it("--encoding reads windows-1252, latin1, iso-8859-15 and shift_jis", async () => {
    const cp1252 = Buffer.from("externalId,name\nw-1,Zo\xeb M\xfcller \x80\n", "latin1");
    expect((await readAll(cp1252, { encoding: "windows-1252" }))[1]!.cells).toEqual(["w-1", "Zoë Müller €"]);
    expect((await readAll(cp1252, { encoding: checkEncoding("latin1") }))[1]!.cells[1]).toBe("Zoë Müller €");
    const l9 = Buffer.from("externalId,name\nw-1,\xa4 \xbd\n", "latin1");
    expect((await readAll(l9, { encoding: "iso-8859-15" }))[1]!.cells[1]).toBe("€ œ");
    const sjis = Buffer.concat([Buffer.from("externalId,name\nj-1,"), Buffer.from([0x93, 0xfa, 0x96, 0x7b])]);
    expect((await readAll(sjis, { encoding: "shift_jis" }))[1]!.cells[1]).toBe("日本");
  });

  it("a byte order mark wins over --encoding, and says so", async () => {
    const notes: string[] = [];
    const recs = await readAll(`\ufeff${rows}`, { encoding: "windows-1252", note: (l) => notes.push(l) });
    expect(recs.map((r) => r.cells)).toEqual(cells);
    expect(notes).toEqual([
      "in.csv starts with a UTF-8 byte order mark: reading it as UTF-8, not windows-1252 (--encoding).",
    ]);
  });

  it("bytes that are not UTF-8: the line, the field, the line as Windows-1252 and the flag to use", async () => {
    const bytes = Buffer.from("externalId,name\nw-1,Ann\nw-2,Zo\xeb Adams\nw-3,Bo\n", "latin1");
    for (const chunk of [1, 5, 64 * 1024]) {
      const err = await readError(bytes, { chunk });
      expect(err.line).toBe(3);
      expect(err.message).toBe(
        [
          "in.csv: line 3, field 2 (name): bytes that are not UTF-8 (byte 7 of the line).",
          "Read as Windows-1252, line 3 is:",
          "  3 | w-2,Zoë Adams",
          "    |       ^",
        ].join("\n"),
      );
      expect(err.hint).toMatch(/--encoding windows-1252/);
    }
  });

  it("a UTF-8 sequence cut off at the end of the file", async () => {
    const err = await readError(Buffer.concat([Buffer.from("a,b\n1,x"), Buffer.from([0xe5, 0xbc])]));
    expect(err.line).toBe(2);
    expect(err.message).toMatch(/line 2, field 2 \(b\): bytes that are not UTF-8 \(byte 4 of the line\)/);
  });

  it("bytes that are not valid in the encoding asked for", async () => {
    const err = await readError(Buffer.concat([Buffer.from("a,b\n1,"), Buffer.from([0x81, 0x20, 0x0a])]), {
      encoding: "shift_jis",
    });
    expect(err.message).toMatch(/^in\.csv: line 2, field 2 \(b\): bytes that are not valid SHIFT_JIS/);
    expect(err.hint).toMatch(/check --encoding/);
  });

  it("UTF-16 without a byte order mark is named, with the flag that reads it", async () => {
    const err = await readError(Buffer.from(rows, "utf16le"));
    expect(err.message).toMatch(/looks like UTF-16 text without a byte order mark/);
    expect(err.hint).toMatch(/--encoding utf-16le/);
    expect(
      (await readAll(Buffer.from(rows, "utf16le"), { encoding: "utf-16le" })).map((r) => r.cells),
    ).toEqual(cells);
  });

  it("an unknown --encoding is a usage error listing examples", () => {
    expect(() => checkEncoding("cp-9999")).toThrow(/--encoding "cp-9999" is not an encoding/);
    try {
      checkEncoding("nope");
    } catch (err) {
      expect((err as CsvFileError).hint).toMatch(/windows-1252, latin1, iso-8859-15.*shift_jis/);
    }
    expect(checkEncoding("latin1")).toBe("windows-1252");
    expect(checkEncoding("Shift_JIS")).toBe("shift_jis");
  });
});

describe("CsvReader: delimiters", () => {
  it("taken from the header line: , ; tab |", async () => {
    for (const d of [",", ";", "\t", "|"]) {
      const recs = await readAll(`externalId${d}name${d}email\nx-1${d}"A${d} B"${d}a@example.com\n`);
      expect(recs[1]!.cells).toEqual(["x-1", `A${d} B`, "a@example.com"]);
    }
  });

  it("detectDelimiter counts outside quotes; parseDelimiter accepts the words", () => {
    expect(detectDelimiter('"a;b";c,d,e')).toBe(",");
    expect(detectDelimiter("externalId")).toBeUndefined();
    expect(detectDelimiter("a\tb;c\td")).toBe("\t");
    expect(parseDelimiter("tab")).toBe("\t");
    expect(parseDelimiter("\\t")).toBe("\t");
    expect(parseDelimiter("\t")).toBe("\t");
    expect(parseDelimiter(";")).toBe(";");
    expect(() => parseDelimiter(":")).toThrow(/--delimiter ":" is not one of , ; \| tab/);
  });

  it("--delimiter overrides the header line", async () => {
    const recs = await readAll("a;b,c\n1;2,3\n", { delimiter: ";" });
    expect(recs.map((r) => r.cells)).toEqual([
      ["a", "b,c"],
      ["1", "2,3"],
    ]);
  });
});

describe("CsvReader: errors name the physical line and field, with an excerpt", () => {
  it("a quote inside an unquoted field, after quoted line breaks and CRLF", async () => {
    const text = 'externalId,name\r\na-1,"two\r\nlines"\r\na-2,Ann\r\na-3,Tom "The Bomb" Jones\r\n';
    for (const chunk of [3, 64 * 1024]) {
      const err = await readError(text, { chunk });
      expect(err.line).toBe(5);
      expect(err.message).toBe(
        [
          "in.csv: line 5, field 2 (name): a quote inside a field that is not quoted.",
          '  5 | a-3,Tom "The Bomb" Jones',
          "    |         ^",
        ].join("\n"),
      );
      expect(err.hint).toMatch(/"Tom ""The Bomb"" Jones"/);
    }
  });

  it("text after a closing quote", async () => {
    const err = await readError('a,b\n1,ok\n2,"ab" c\n');
    expect(err.line).toBe(3);
    expect(err.headline).toBe(
      "in.csv: line 3, field 2 (b): text right after the closing quote of a quoted field.",
    );
  });

  it("a quote never closed: the line where it opens, also inside a record that started earlier", async () => {
    const first = await readError('a,b,c\n1,ok,x\n2,"open\n3,more\n4,end\n');
    expect(first.line).toBe(3);
    expect(first.headline).toBe(
      "in.csv: line 3, field 2 (b): a quoted field opens here and is never closed.",
    );
    const later = await readError('a,b,c\n1,"two\nlines",x\n2,"fine\nstill",y\n3,"three\n4,end\n');
    expect(later.line).toBe(6);
    expect(later.headline).toMatch(/^in\.csv: line 6, field 2 \(b\): a quoted field opens here/);
  });

  it("a record over 64 KiB", async () => {
    const err = await readError(`a,b\n1,ok\n2,${"x".repeat(70_000)}\n`);
    expect(err.line).toBe(3);
    expect(err.headline).toBe(
      "in.csv: line 3, field 2 (b): the record starting on line 3 is longer than 64 KiB.",
    );
  });

  it("a stray quote that runs to the end of a long file names its own line", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `r-${i},N ${i}`);
    rows[1234] = 'r-1234,O"Brien';
    const err = await readError(`a,b\n${rows.join("\n")}\n`);
    expect(err.line).toBe(1236);
    expect(err.headline).toMatch(/line 1236, field 2 \(b\): a quote inside a field that is not quoted/);
  });

  it("excerpt cuts long lines around the column and shows tabs", () => {
    expect(excerpt(7, "a\tb", 2)).toBe("  7 | a→b\n    |   ^");
    const long = `${"x".repeat(200)}"${"y".repeat(200)}`;
    const [l1, l2] = excerpt(9, long, 200).split("\n");
    expect(l1!.length).toBeLessThan(120);
    expect(l1![l2!.indexOf("^")]).toBe('"');
  });
});

describe("CsvReader: bounded memory on a file without line ends", () => {
  it("a 3 MB line is refused as an oversize record on line 2", async () => {
    const err = await readError(`a,b\n1,${"x".repeat(3 * 1024 * 1024)}`);
    expect(err.line).toBe(2);
    expect(err.headline).toMatch(
      /line 2, field 2 \(b\): the record starting on line 2 is longer than 64 KiB/,
    );
  });
});
