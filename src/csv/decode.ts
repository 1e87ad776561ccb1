// Turning an input file's bytes into text, streamed, with the platform's decoders (TextDecoder, full
// ICU in official Node builds). UTF-8 (with or without a byte order mark) and UTF-16 LE/BE (by their
// byte order mark) are read without being asked; `--encoding NAME` reads anything TextDecoder knows.
// Bytes that do not decode stop the read with the physical line they are on: never silent mojibake.
//
// The text is produced in blocks of whole lines: each block given to the decoder ends just after a
// line feed, so the decoder holds no half-read character between blocks, and when a block fails its
// lines can be decoded one by one to name the first bad line exactly.
import { UsageError } from "../errors.js";

/** Encodings people meet in files from Excel and CRMs (all known to TextDecoder). */
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

/** Why the bytes could not be decoded, and where (line 1 is the first line of the file). */
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
  ) {
    super(`line ${line} holds bytes that are not valid ${encoding}`);
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

/** Smallest prefix length of `line` that the decoder refuses, minus one: the bad byte's offset. */
function badByteOffset(line: Uint8Array, encoding: string): number {
  const fails = (len: number) => {
    try {
      new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(line.subarray(0, len), {
        stream: len < line.length,
      });
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
  for (let k = lo - 1; k >= Math.max(0, lo - 4); k--) {
    try {
      new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(line.subarray(0, k));
      return k;
    } catch {
      // still inside the bad sequence
    }
  }
  return Math.max(0, lo - 1);
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

/**
 * Decodes a byte stream into text blocks made of whole lines (the last block may end without a line
 * end). Throws a {@link DecodeError} naming the line of the first byte that does not decode.
 */
export async function* decodeText(
  chunks: AsyncIterable<Uint8Array>,
  o: DecodeOptions,
  info: DecodedText = { encoding: "utf-8", source: "default" },
): AsyncGenerator<string> {
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let unit: Unit = { size: 1, bigEndian: false };
  let carry: Uint8Array = new Uint8Array(0);
  let linesBefore = 0;

  const start = (head: Uint8Array) => {
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
    unit = unitOf(info.encoding);
    // The decoder removes the byte order mark of its own encoding at the very start.
    decoder = new TextDecoder(info.encoding, { fatal: true });
  };

  /**
   * Decodes a block of whole lines. When it does not decode, returns the text of the lines before the
   * first bad one (so the caller still sees the header) and the error to throw after it.
   */
  const decodeBlock = (block: Uint8Array, last: boolean): { text: string; error?: DecodeError } => {
    try {
      return { text: decoder!.decode(block, { stream: !last }) };
    } catch {
      // Find the first line of the block that does not decode on its own.
      const lines = byteLines(block, unit);
      let at = lines.length - 1;
      for (let i = 0; i < lines.length; i++) {
        try {
          new TextDecoder(info.encoding, { fatal: true, ignoreBOM: linesBefore + i > 0 }).decode(lines[i]);
        } catch {
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
      );
      let text = "";
      try {
        const good = block.subarray(0, line.byteOffset - block.byteOffset);
        text = new TextDecoder(info.encoding, { fatal: true, ignoreBOM: linesBefore > 0 }).decode(good);
      } catch {
        text = "";
      }
      return { text, error };
    }
  };

  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    let buf: Uint8Array = chunk;
    if (carry.length) {
      const joined = new Uint8Array(carry.length + chunk.length);
      joined.set(carry, 0);
      joined.set(chunk, carry.length);
      buf = joined;
    }
    if (!decoder) {
      if (buf.length < 3) {
        carry = buf;
        continue;
      }
      start(buf);
    }
    let cut = blockEnd(buf, unit);
    if (cut === 0 && buf.length > MAX_LINE_BYTES) cut = buf.length - (buf.length % unit.size);
    if (cut === 0) {
      carry = buf;
      continue;
    }
    carry = buf.slice(cut);
    const { text, error } = decodeBlock(buf.subarray(0, cut), false);
    linesBefore += countBreaks(text);
    if (text) yield text;
    if (error) throw error;
  }
  if (!decoder) {
    if (carry.length === 0) return;
    start(carry);
  }
  const { text, error } = decodeBlock(carry, true);
  if (text) yield text;
  if (error) throw error;
}
