// The one decoder (src/csv/decode.ts): Windows-1252 read as WHATWG says whatever the call, C1 control
// characters from a legacy encoding refused with their line, and the same refusal for --ids files.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  ControlCharacterError,
  type DecodedText,
  DecodeError,
  decodeAll,
  decodeText,
} from "../../src/csv/decode.js";
import { readIdList } from "../../src/csv/id-list.js";
import { CsvReader } from "../../src/csv/read.js";
import { UsageError } from "../../src/errors.js";

/** WHATWG windows-1252 for 0x80-0x9F: the five bytes it leaves undefined stay C1 controls. */
const HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];

async function* chunksOf(...parts: (string | number[])[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === "string" ? Buffer.from(p, "latin1") : Uint8Array.from(p);
}

async function decoded(chunks: AsyncIterable<Uint8Array>, encoding?: string) {
  const info: DecodedText = { encoding: "utf-8", source: "default" };
  const texts: string[] = [];
  let error: unknown;
  try {
    for await (const t of decodeText(chunks, { name: "in.csv", encoding }, info)) texts.push(t);
  } catch (err) {
    error = err;
  }
  return { text: texts.join(""), error };
}

describe("the decoder", () => {
  it("reads 0x80-0x9F as WHATWG windows-1252 under each of its labels, in one call or streamed", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i);
    const expected = String.fromCodePoint(...HIGH);
    for (const label of ["windows-1252", "latin1", "iso-8859-1", "ascii", "cp1252"])
      expect(decodeAll(bytes, label, { fatal: false }), label).toBe(expected);
  });

  it("a file with no line end at all (decoded in its final call only) reads ’ “ ” € as windows-1252", async () => {
    const r = await decoded(chunksOf("id,name\r\nq-1,O\x92Brien \x93Zo\x94 \x80"), "windows-1252");
    expect(r.error).toBeUndefined();
    expect(r.text).toBe("id,name\r\nq-1,O’Brien “Zo” €");
    const one = await decoded(chunksOf("O\x92B"), "windows-1252");
    expect(one.text).toBe("O’B");
  });

  it("a C1 control from a legacy encoding stops the read at its line; the lines before are handed out", async () => {
    const r = await decoded(chunksOf("id,name\nw-1,Ann\nw-2,Fran\x8dois\nw-3,Bo\n"), "windows-1252");
    expect(r.text).toBe("id,name\nw-1,Ann\n");
    expect(r.error).toBeInstanceOf(ControlCharacterError);
    expect(r.error).toMatchObject({ line: 3, cp: 0x8d, column: 8, byteInLine: 8, crOnly: false });
    // ISO-8859-2 keeps 0x80-0x9F as C1 controls (NEL here).
    const iso = await decoded(chunksOf("a\nb\x85c\n"), "iso-8859-2");
    expect(iso.error).toMatchObject({ line: 2, cp: 0x85 });
  });

  it("a C1 control is found on its exact line past the first block (blocks of 64 KiB chunks)", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `w-${i},Name ${i}`);
    lines[15_000] = "w-15000,Fran\x90ois";
    const text = `id,name\r\n${lines.join("\r\n")}\r\n`;
    const bytes = Buffer.from(text, "latin1");
    const chunks = (async function* () {
      for (let i = 0; i < bytes.length; i += 65_536) yield bytes.subarray(i, i + 65_536);
    })();
    const r = await decoded(chunks, "windows-1252");
    expect(r.error).toMatchObject({ line: 15_002, cp: 0x90, column: 12 });
    expect(r.text.endsWith("w-14999,Name 14999\r\n")).toBe(true);
  });

  it("UTF-8 and UTF-16 text may hold a C1 control (written on purpose): no refusal there", async () => {
    const r = await decoded(chunksOf("id,name\nu-1,a\xc2\x85b\n"));
    expect(r.error).toBeUndefined();
    expect(r.text).toBe("id,name\nu-1,a\u0085b\n");
  });

  it("a file whose lines end in CR only is marked as such in the not-UTF-8 error; CRLF and LF files are not", async () => {
    const mac = await decoded(chunksOf("id,name\rm-1,Zo\x91\r"));
    expect(mac.error).toBeInstanceOf(DecodeError);
    expect(mac.error).toMatchObject({ line: 2, byteInLine: 6, crOnly: true });
    for (const end of ["\n", "\r\n"]) {
      const r = await decoded(chunksOf(`id,name${end}m-1,Zo\x91${end}`));
      expect(r.error).toMatchObject({ line: 2, crOnly: false });
    }
  });
});

describe("the reader's messages", () => {
  const read = async (bytes: Buffer, encoding?: string) => {
    const reader = new CsvReader({ name: "in.csv", encoding });
    try {
      for await (const _ of reader.records(chunksOf([...bytes]))) {
        // read to the end
      }
    } catch (err) {
      return err as UsageError;
    }
    throw new Error("expected an error");
  };

  it("a C1 control: line, field, code point, and the line as decoded", async () => {
    const err = await read(
      Buffer.from("externalId,name\nw-1,Ann\nw-2,Fran\x8dois\n", "latin1"),
      "windows-1252",
    );
    expect(err.message).toBe(
      "in.csv: line 3, field 2 (name): U+008D, a control character, after decoding as windows-1252: the file is probably not windows-1252.\n" +
        "  3 | w-2,Fran\u008dois\n" +
        "    |         ^",
    );
    expect(err.hint).toBe(
      'Run again with the encoding the file was saved in (--encoding windows-1250, iso-8859-15, macintosh, ...), or save it as "CSV UTF-8" and drop --encoding.',
    );
  });

  it("not UTF-8 with CR line ends: the line as Mac Roman, and --encoding macintosh first", async () => {
    const err = await read(Buffer.from("externalId,name\rm-1,Zo\x91 Adams\r", "latin1"));
    expect(err.message).toBe(
      "in.csv: line 2, field 2 (name): bytes that are not UTF-8 (byte 7 of the line).\n" +
        "Read as Mac Roman (macintosh), line 2 is:\n" +
        "  2 | m-1,Zoë Adams\n" +
        "    |       ^",
    );
    expect(err.hint).toBe(
      'Its lines end in CR only, as classic Mac files do: if it reads right, run again with --encoding macintosh; else try --encoding windows-1252 (Excel\'s "CSV" on Windows), or save the file as "CSV UTF-8".',
    );
  });
});

describe("--ids files", () => {
  const dir = mkdtempSync(join(tmpdir(), "ids-c1-"));
  const refusal = async (bytes: Buffer, encoding: string) => {
    const path = join(dir, "ids.txt");
    writeFileSync(path, bytes);
    try {
      await readIdList(path, new PassThrough(), { encoding });
    } catch (err) {
      return { path, err: err as UsageError };
    }
    throw new Error("expected an error");
  };

  it("a C1 control decoded from --encoding windows-1252 is refused with its line", async () => {
    const { path, err } = await refusal(Buffer.from("c-1\nc-\x9d2\nc-3\n", "latin1"), "windows-1252");
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(
      `${path}: line 2, field 1: U+009D, a control character, after decoding as windows-1252: the file is probably not windows-1252.\n` +
        "  2 | c-\u009d2\n" +
        "    |   ^",
    );
  });

  it("in a CSV of ids with CR line ends (read whole before its header is: no field name), the hint is --encoding macintosh", async () => {
    const { path, err } = await refusal(
      Buffer.from("Creator ID,Name\rc-1,Zo\x91\rc-2,Fran\x8dois\r", "latin1"),
      "windows-1252",
    );
    expect(err.message.split("\n")[0]).toBe(
      `${path}: line 3, field 2: U+008D, a control character, after decoding as windows-1252: the file is probably not windows-1252.`,
    );
    expect(err.hint).toBe(
      "Its lines end in CR only, as classic Mac files do: run again with --encoding macintosh.",
    );
    // The same bytes as Mac Roman: read.
    writeFileSync(path, Buffer.from("Creator ID,Name\rc-1,Zo\x91\rc-2,Fran\x8dois\r", "latin1"));
    const ok = await readIdList(path, new PassThrough(), { encoding: "macintosh" });
    expect(ok.ids).toEqual(["c-1", "c-2"]);
  });
});
