// Turning an input file's bytes into text, streamed, with the platform's decoders (TextDecoder, full
// ICU in official Node builds). UTF-8 (with or without a byte order mark) and UTF-16 LE/BE (by their
// byte order mark) are read without being asked; `--encoding NAME` reads anything TextDecoder knows.
// Bytes that do not decode stop the read with the physical line they are on: never silent mojibake.
//
// The text is produced in blocks of whole lines: each block given to the decoder ends just after a
// line feed, so the decoder holds no half-read character between blocks, and when a block fails its
// lines can be decoded one by one to name the first bad line exactly.
import { UsageError } from "../errors.js";

/** Encodings people meet in files from Excel and CRMs (all known to TextDecoder); completion offers them. */
export const ENCODING_EXAMPLES = [
  "utf-8",
  "utf-16le",
  "utf-16be",
  "windows-1252",
  "latin1",
  "iso-8859-15",
  "windows-1250",
  "macintosh",
  "shift_jis",
  "gb18030",
  "big5",
  "euc-kr",
];

/** Above this many bytes without a line feed, text is decoded anyway (the record is refused later). */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * The one way bytes become text here: the import, an `--ids` file and the previews shown in errors
 * all decode through this class, so what an error shows is what the import would read.
 *
 * Every call is streamed, and the end flushed with a second call. Node's TextDecoder reads
 * windows-1252 (the label latin1, iso-8859-1 and ascii name too) as ISO-8859-1 when a decoder's first
 * call is not streamed, in the releases this runs on (20.18.3 on, 22.13 on, 24: nodejs/node#56542,
 * #60888): a fast path that turns ’ “ ” € (bytes 0x92 0x93 0x94 0x80) into the C1 controls U+0092
 * U+0093 U+0094 U+0080. Streamed, ICU decodes it as the WHATWG windows-1252 it names.
 */
class Decoder {
  private readonly d: InstanceType<typeof TextDecoder>;
  constructor(
    readonly encoding: string,
    o: { fatal?: boolean | undefined; ignoreBOM?: boolean | undefined } = {},
  ) {
    this.d = new TextDecoder(encoding, { fatal: o.fatal ?? true, ignoreBOM: o.ignoreBOM ?? false });
  }
  /** The text of the next bytes; with `last`, they end the input (a character cut short is an error). */
  decode(bytes: Uint8Array, last = false): string {
    const text = this.d.decode(bytes, { stream: true });
    return last ? text + this.d.decode() : text;
  }
}

/** Bytes decoded as a whole with a new {@link Decoder} (fatal unless told otherwise). */
export function decodeAll(
  bytes: Uint8Array,
  encoding: string,
  o: { fatal?: boolean | undefined; ignoreBOM?: boolean | undefined } = {},
): string {
  return new Decoder(encoding, o).decode(bytes, true);
}

/**
 * C1 control characters (U+0080-U+009F). No text holds them; decoded from a legacy encoding they are
 * bytes the code page leaves undefined (windows-1252's 0x81 0x8D 0x8F 0x90 0x9D) or not meant as that
 * code page at all (ISO-8859-x's 0x80-0x9F): the sign of a wrong --encoding.
 */
const C1_RE = /[\u0080-\u009f]/;

/** UTF-8 and UTF-16 spell a C1 control on purpose; any other encoding makes one only from a wrong guess. */
const isUnicode = (encoding: string) =>
  encoding === "utf-8" || encoding === "utf-16le" || encoding === "utf-16be";

/**
 * Why the bytes could not be read as text, and where (line 1 is the first line of the file): bytes
 * that do not decode, or (ControlCharacterError) a control character that only a wrong decode makes.
 */
export class DecodeError extends Error {
  constructor(
    /** The encoding the bytes were read as (TextDecoder's name for it). */
    readonly encoding: string,
    /** Physical line holding the first bad byte. */
    readonly line: number,
    /** Byte offset of the bad byte within that line (0-based). */
    readonly byteInLine: number,
    /** The line's bytes (without its line end). */
    readonly lineBytes: Uint8Array,
    /** Whether the encoding was chosen by the caller (--encoding) rather than assumed. */
    readonly chosen: boolean,
    /** The file's line ends, as far as it was read, are CR only (a classic Mac file). */
    readonly crOnly = false,
    message = `line ${line} holds bytes that are not valid ${encoding}`,
  ) {
    super(message);
  }
}

/** The bytes decode, but into a C1 control character: the encoding is wrong. */
export class ControlCharacterError extends DecodeError {
  constructor(
    encoding: string,
    line: number,
    byteInLine: number,
    lineBytes: Uint8Array,
    chosen: boolean,
    crOnly: boolean,
    /** The control character's code point. */
    readonly cp: number,
    /** Its index (UTF-16 units) in the line's text. */
    readonly column: number,
  ) {
    super(
      encoding,
      line,
      byteInLine,
      lineBytes,
      chosen,
      crOnly,
      `line ${line} decodes to a control character as ${encoding}`,
    );
  }
}

/** Checks an `--encoding` value; returns TextDecoder's canonical name for it. */
export function checkEncoding(name: string): string {
  try {
    return new TextDecoder(name.trim()).encoding;
  } catch {
    throw new UsageError(
      `--encoding "${name}" is not an encoding this Node.js can read.`,
      `Examples: ${ENCODING_EXAMPLES.join(", ")}. Excel's "CSV" on Windows is windows-1252.`,
    );
  }
}

interface Unit {
  /** Bytes per code unit: 1 for UTF-8 and the single- and multi-byte legacy encodings, 2 for UTF-16. */
  size: 1 | 2;
  bigEndian: boolean;
}

function unitOf(encoding: string): Unit {
  if (encoding === "utf-16le") return { size: 2, bigEndian: false };
  if (encoding === "utf-16be") return { size: 2, bigEndian: true };
  return { size: 1, bigEndian: false };
}

function bomOf(b: Uint8Array): { encoding: string; length: number } | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (b[0] === 0xff && b[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (b[0] === 0xfe && b[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return undefined;
}

/** The byte (as a code unit) at unit index i: for UTF-16 only when the other byte is 0. */
function unitAt(b: Uint8Array, i: number, u: Unit): number {
  if (u.size === 1) return b[i]!;
  const hi = u.bigEndian ? b[i]! : b[i + 1]!;
  if (hi !== 0) return -1;
  return u.bigEndian ? b[i + 1]! : b[i]!;
}

/**
 * Where a block of whole lines ends in b: just after the last line feed; in a file with CR line ends
 * only, just after the last CR that is not the last unit (it could be the first half of a CRLF).
 * 0 when b holds no line end yet.
 */
function blockEnd(b: Uint8Array, u: Unit): number {
  const n = u.size === 1 ? b.length : b.length & ~1;
  let lastCr = 0;
  if (u.size === 1) {
    const lf = b.lastIndexOf(0x0a);
    if (lf >= 0) return lf + 1;
    const cr = b.lastIndexOf(0x0d, n - 2);
    return cr >= 0 ? cr + 1 : 0;
  }
  for (let i = n - 2; i >= 0; i -= 2) {
    const c = unitAt(b, i, u);
    if (c === 0x0a) return i + 2;
    if (c === 0x0d && lastCr === 0 && i + 2 < n) lastCr = i + 2;
  }
  return lastCr;
}

/** Splits bytes into physical lines (CRLF, LF or CR), without their line ends. */
function byteLines(b: Uint8Array, u: Unit): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  const n = u.size === 1 ? b.length : b.length & ~1;
  for (let i = 0; i < n; i += u.size) {
    const c = unitAt(b, i, u);
    if (c !== 0x0a && c !== 0x0d) continue;
    out.push(b.subarray(start, i));
    if (c === 0x0d && i + u.size < n && unitAt(b, i + u.size, u) === 0x0a) i += u.size;
    start = i + u.size;
  }
  out.push(b.subarray(start));
  return out;
}

/** Whether `line` decodes completely as `encoding`. */
function decodes(line: Uint8Array, encoding: string, ignoreBOM: boolean): boolean {
  try {
    decodeAll(line, encoding, { ignoreBOM });
    return true;
  } catch {
    return false;
  }
}

/** Smallest prefix length of `line` that the decoder refuses, minus one: the bad byte's offset. */
function badByteOffset(line: Uint8Array, encoding: string): number {
  const fails = (len: number) => {
    try {
      new Decoder(encoding, { ignoreBOM: true }).decode(line.subarray(0, len), len === line.length);
      return false;
    } catch {
      return true;
    }
  };
  let lo = 1;
  let hi = line.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fails(mid)) hi = mid;
    else lo = mid + 1;
  }
  // The bad sequence starts after the longest prefix that decodes completely (a lead byte whose
  // continuation never comes is the byte to point at, not the one after it).
  for (let k = lo - 1; k >= Math.max(0, lo - 4); k--)
    if (decodes(line.subarray(0, k), encoding, true)) return k;
  return Math.max(0, lo - 1);
}

/** The offset of the byte that decodes to the character at text index `column` of `line`. */
function byteOfColumn(line: Uint8Array, encoding: string, column: number): number {
  const d = new Decoder(encoding, { fatal: false, ignoreBOM: true });
  let length = 0;
  for (let i = 0; i < line.length; i++) {
    length += d.decode(line.subarray(i, i + 1)).length;
    if (length > column) return i;
  }
  return line.length;
}

/** Line ends in `s` (CRLF, LF or CR). */
function countBreaks(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  // A CR counts unless it is the first half of a CRLF.
  for (let i = s.indexOf("\r"); i >= 0; i = s.indexOf("\r", i + 1)) if (s.charCodeAt(i + 1) !== 0x0a) n++;
  return n;
}

export interface DecodeOptions {
  /** `--encoding`, already checked. A byte order mark in the file wins over it. */
  encoding?: string | undefined;
  /** Called once with a note for stderr (a byte order mark that overrides --encoding). */
  note?: ((line: string) => void) | undefined;
  /** The file as named in messages. */
  name: string;
}

export interface DecodedText {
  /** The encoding in use, once the first bytes are read. */
  encoding: string;
  /** How it was chosen. */
  source: "bom" | "flag" | "default";
}

/** A block's text: the lines before the first bad one when `error` is set. */
interface BlockText {
  text: string;
  error?: DecodeError;
}

/** The decoding of one input, block by block (see decodeText). */
class BlockDecoder {
  private decoder: Decoder | undefined;
  private unit: Unit = { size: 1, bigEndian: false };
  /** Line ends in the text handed out so far. */
  linesBefore = 0;
  private sawLf = false;
  private sawCr = false;
  /** The text handed out last ends with a CR. */
  private endsInCr = false;

  constructor(
    private readonly o: DecodeOptions,
    private readonly info: DecodedText,
  ) {}

  get started(): boolean {
    return this.decoder !== undefined;
  }

  /** Settles the encoding from the first bytes (a byte order mark wins over --encoding). */
  start(head: Uint8Array): void {
    const { o, info } = this;
    const bom = bomOf(head);
    if (bom) {
      if (o.encoding && o.encoding !== bom.encoding)
        o.note?.(
          `${o.name} starts with a ${bom.encoding.toUpperCase()} byte order mark: reading it as ${bom.encoding.toUpperCase()}, not ${o.encoding} (--encoding).`,
        );
      info.encoding = bom.encoding;
      info.source = "bom";
    } else if (o.encoding) {
      info.encoding = o.encoding;
      info.source = "flag";
    }
    this.unit = unitOf(info.encoding);
    // The decoder removes the byte order mark of its own encoding at the very start.
    this.decoder = new Decoder(info.encoding);
  }

  /** Where the block of whole lines in `buf` ends (0: no line end yet). */
  blockEnd(buf: Uint8Array): number {
    let cut = blockEnd(buf, this.unit);
    if (cut === 0 && buf.length > MAX_LINE_BYTES) cut = buf.length - (buf.length % this.unit.size);
    return cut;
  }

  /**
   * Decodes a block of whole lines. When it does not decode (or decodes to a control character that
   * only a wrong encoding makes), the text of the lines before the first bad one (so the caller still
   * sees the header) and the error to throw after it.
   */
  decode(block: Uint8Array, last: boolean): BlockText {
    const end = this.unit.size === 1 ? block[block.length - 1] : -1;
    if (end === 0x0a) this.sawLf = true;
    else if (end === 0x0d) this.sawCr = true;
    let out: BlockText;
    try {
      out = { text: this.decoder!.decode(block, last) };
    } catch {
      out = this.badBytes(block);
    }
    if (!isUnicode(this.info.encoding) && C1_RE.test(out.text)) out = this.control(block, out.text);
    this.linesBefore += countBreaks(out.text);
    // Before a bad line, a CR handed out last is a whole line end, yet the reader waits for the next
    // text to tell it from a CRLF's first half: an LF after it ends the wait without adding a line
    // (CRLF is one line end), so the lines before, the header naming the fields, are read.
    if (out.error && (out.text === "" ? this.endsInCr : out.text.endsWith("\r"))) out.text += "\n";
    if (out.text !== "") this.endsInCr = out.text.endsWith("\r");
    return out;
  }

  /** Whether the line ends read so far, this block's included, are CR only (a classic Mac file). */
  private crOnly(block: Uint8Array): boolean {
    if (this.unit.size !== 1 || this.sawLf || block.includes(0x0a)) return false;
    return this.sawCr || block.includes(0x0d);
  }

  /** The first line of the block that does not decode on its own, and the text before it. */
  private badBytes(block: Uint8Array): BlockText {
    const { info, linesBefore } = this;
    const lines = byteLines(block, this.unit);
    let at = lines.length - 1;
    for (let i = 0; i < lines.length; i++) {
      if (!decodes(lines[i]!, info.encoding, linesBefore + i > 0)) {
        at = i;
        break;
      }
    }
    const line = lines[at]!;
    const error = new DecodeError(
      info.encoding,
      linesBefore + at + 1,
      badByteOffset(line, info.encoding),
      line.slice(0, 4096),
      info.source !== "default",
      this.crOnly(block),
    );
    let text = "";
    try {
      text = decodeAll(block.subarray(0, line.byteOffset - block.byteOffset), info.encoding, {
        ignoreBOM: linesBefore > 0,
      });
    } catch {
      text = "";
    }
    return { text, error };
  }

  /** The line of `text` (a block's, or the part of it before a bad line) holding the first C1 control. */
  private control(block: Uint8Array, text: string): BlockText {
    const { info } = this;
    const index = text.search(C1_RE);
    const lineStart = Math.max(text.lastIndexOf("\n", index), text.lastIndexOf("\r", index)) + 1;
    const before = text.slice(0, lineStart);
    const at = countBreaks(before);
    const line = byteLines(block, this.unit)[at]!;
    const column = index - lineStart;
    const error = new ControlCharacterError(
      info.encoding,
      this.linesBefore + at + 1,
      byteOfColumn(line, info.encoding, column),
      line.slice(0, 4096),
      info.source !== "default",
      this.crOnly(block),
      text.charCodeAt(index),
      column,
    );
    return { text: before, error };
  }
}

/**
 * Decodes a byte stream into text blocks made of whole lines (the last block may end without a line
 * end). Throws a {@link DecodeError} naming the line of the first byte that does not decode, and
 * (from an encoding other than UTF-8 and UTF-16) a {@link ControlCharacterError} for the first C1
 * control character decoded.
 */
export async function* decodeText(
  chunks: AsyncIterable<Uint8Array>,
  o: DecodeOptions,
  info: DecodedText = { encoding: "utf-8", source: "default" },
): AsyncGenerator<string> {
  const blocks = new BlockDecoder(o, info);
  let carry: Uint8Array = new Uint8Array(0);
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    let buf: Uint8Array = chunk;
    if (carry.length) {
      const joined = new Uint8Array(carry.length + chunk.length);
      joined.set(carry, 0);
      joined.set(chunk, carry.length);
      buf = joined;
    }
    if (!blocks.started) {
      if (buf.length < 3) {
        carry = buf;
        continue;
      }
      blocks.start(buf);
    }
    const cut = blocks.blockEnd(buf);
    if (cut === 0) {
      carry = buf;
      continue;
    }
    carry = buf.slice(cut);
    const { text, error } = blocks.decode(buf.subarray(0, cut), false);
    if (text) yield text;
    if (error) throw error;
  }
  if (!blocks.started) {
    if (carry.length === 0) return;
    blocks.start(carry);
  }
  const { text, error } = blocks.decode(carry, true);
  if (text) yield text;
  if (error) throw error;
}
