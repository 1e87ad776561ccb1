// Output files of exports and event syncs: what a checkpoint knows about the content it covers
// (FileState), how a run proves, before it requests or writes anything, that a file still holds
// exactly that content (inspectOutput), the intent a run records before each write, and durable
// appends (fsync) to a file or plain writes to stdout.
//
// What a FileState proves, and what it costs:
// - `bytes`, `dev`+`ino` (the file's identity), and the file's mtime/ctime after the last fsync;
// - `head` and `tail`: sha256 of the first and of the last 64 KiB of the committed content;
// - `crc32`: CRC-32 of the whole committed content, carried from write to write (zlib.crc32 takes
//   the previous value), so it never needs a re-read to stay current.
// A run whose file has the same identity, length, mtime and ctime as the last commit left it (the
// cron case) checks the two 64 KiB blocks: no other program wrote to it since (a write moves
// mtime and ctime, and ctime cannot be set back by a program), so 128 KiB are read whatever the
// file's size. Any other file (touched, longer, shorter, another inode) is read once in full and
// must match the length, both blocks and the CRC-32 of the whole committed content. The CRC guards
// against accidents (an editor, a spreadsheet, a copy), not against someone forging a file on
// purpose, who could write anything anyway.
//
// The intent record: before a run writes a block of bytes it saves, in its checkpoint, where the
// block starts (the committed length), its length, and a 128-bit sha256 prefix of each piece of it
// between 4 KiB file offsets (and its end). If the run dies mid-write, the file holds the committed
// content plus a prefix of that block. Linux cuts an interrupted write(2) to a regular file at a
// page (folio) boundary of the file, a multiple of 4 KiB, and the block is written by one write
// call (repeated only for a short write), so such a tail ends on one of the recorded boundaries.
// The next run cuts a tail only when it starts at the committed length, is no longer than the
// recorded block, ends on a recorded boundary and every piece matches its digest: then each byte of
// the tail is proven to be the byte this cursor was about to write there (up to a 2^-128 chance per
// piece). A tail that ends anywhere else, or any byte that does not match, is not cut: the run
// refuses and touches nothing.
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { type FileHandle, open, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { Writable } from "node:stream";
import { crc32 } from "node:zlib";
import { UsageError } from "../errors.js";
import { machineFailure, withPath } from "../io/machine-failure.js";
import { openPrivateAppend } from "../io/private-file.js";

const NOTHING_WRITTEN = "Nothing was written to it, and the cursor is where it was.";

/** Size of the head and tail blocks whose sha256 a FileState keeps. */
export const BLOCK = 64 * 1024;
/** Granularity of the intent's digests: every 4 KiB file offset is a boundary. */
export const CHUNK = 4096;
const DIGEST_BYTES = 16;
const READ_SIZE = 4 << 20;

/** A write about to happen: the bytes [start, start + length) and a digest of each 4 KiB-aligned piece. */
export interface Intent {
  start: number;
  length: number;
  /** base64 of the concatenated 16-byte sha256 prefixes of the pieces, in order. */
  chunks: string;
}

/** What a checkpoint knows about the content of the file it covers (see the header comment). */
export interface FileState {
  /** The file's path (symlinks and relative parts resolved). */
  path: string;
  /** csv | ndjson | events */
  format: string;
  /** Committed length. */
  bytes: number;
  crc32: number;
  /** sha256 (hex) of the first min(bytes, 64 KiB) bytes. */
  head: string;
  /** sha256 (hex) of the last min(bytes, 64 KiB) bytes. */
  tail: string;
  dev: string;
  ino: string;
  mtimeNs: string;
  ctimeNs: string;
  /** The write in progress, recorded before it started (null or absent: none). */
  intent?: Intent | null | undefined;
}

export type ContentSnapshot = Pick<FileState, "bytes" | "crc32" | "head" | "tail">;

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** A running digest of a growing byte sequence: its length, CRC-32 and first and last 64 KiB. */
export class ContentDigest {
  bytes = 0;
  crc = 0;
  private headBuf: Buffer = Buffer.alloc(0);
  private tailBuf: Buffer = Buffer.alloc(0);
  /** sha256 of headBuf, once computed (it stops changing at 64 KiB). */
  private headSha: string | undefined;

  /** A digest that continues from a snapshot, given the content's first and last blocks. */
  static resume(s: ContentSnapshot, head: Buffer, tail: Buffer): ContentDigest {
    const d = new ContentDigest();
    d.bytes = s.bytes;
    d.crc = s.crc32;
    d.headBuf = head;
    d.tailBuf = tail;
    return d;
  }

  update(buf: Uint8Array): void {
    if (buf.length === 0) return;
    this.crc = crc32(buf, this.crc);
    if (this.headBuf.length < BLOCK) {
      this.headBuf = Buffer.concat([this.headBuf, buf.subarray(0, BLOCK - this.headBuf.length)]);
      this.headSha = undefined;
    }
    this.tailBuf =
      buf.length >= BLOCK
        ? Buffer.from(buf.subarray(buf.length - BLOCK))
        : Buffer.from(Buffer.concat([this.tailBuf, buf]).subarray(-BLOCK));
    this.bytes += buf.length;
  }

  snapshot(): ContentSnapshot {
    this.headSha ??= sha(this.headBuf);
    return { bytes: this.bytes, crc32: this.crc, head: this.headSha, tail: sha(this.tailBuf) };
  }
}

export function sameContent(a: ContentSnapshot, b: ContentSnapshot): boolean {
  return a.bytes === b.bytes && a.crc32 === b.crc32 && a.head === b.head && a.tail === b.tail;
}

/** The file-identity part of a FileState, from a bigint stat. */
export function identityOf(st: BigIntStats): Pick<FileState, "dev" | "ino" | "mtimeNs" | "ctimeNs"> {
  return {
    dev: String(st.dev),
    ino: String(st.ino),
    mtimeNs: String(st.mtimeNs),
    ctimeNs: String(st.ctimeNs),
  };
}

/** The absolute path a file is known by: symlinks resolved (of its directory, when it does not exist yet). */
export async function resolveOutPath(p: string): Promise<string> {
  const abs = resolve(p);
  try {
    return await realpath(abs);
  } catch {
    try {
      return join(await realpath(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

// ---- the intent ----

function pieces(start: number, length: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0; p < length; ) {
    const next = Math.min((Math.floor((start + p) / CHUNK) + 1) * CHUNK - start, length);
    out.push([p, next]);
    p = next;
  }
  return out;
}

const pieceDigest = (b: Uint8Array) => createHash("sha256").update(b).digest().subarray(0, DIGEST_BYTES);

/** The intent record for writing `buf` at offset `start`. */
export function intentFor(start: number, buf: Buffer): Intent {
  const digests = pieces(start, buf.length).map(([a, b]) => pieceDigest(buf.subarray(a, b)));
  return { start, length: buf.length, chunks: Buffer.concat(digests).toString("base64") };
}

/** Whether `tail`, found at offset `at`, is provably a prefix of the write `intent` recorded. */
export function intentExplains(intent: Intent | null | undefined, at: number, tail: Buffer): boolean {
  if (!intent || intent.start !== at || tail.length === 0 || tail.length > intent.length) return false;
  const end = at + tail.length;
  if (end !== intent.start + intent.length && end % CHUNK !== 0) return false;
  const want = Buffer.from(intent.chunks, "base64");
  const all = pieces(intent.start, intent.length);
  if (want.length !== all.length * DIGEST_BYTES) return false;
  for (let i = 0; i < all.length; i++) {
    const [a, b] = all[i]!;
    if (a >= tail.length) break;
    if (b > tail.length) return false; // cannot happen: the end is a boundary
    if (!pieceDigest(tail.subarray(a, b)).equals(want.subarray(i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES)))
      return false;
  }
  return true;
}

// ---- checking a file against its checkpoint ----

/** What a run found where its checkpoint says committed content is. */
export type Verdict =
  /** No file, or an empty one, and nothing committed to it: start it. */
  | { kind: "absent"; size: number; stat: BigIntStats | undefined }
  /** Exactly the committed content (`replaced`: the same bytes in another file, e.g. a copy). */
  | { kind: "intact"; stat: BigIntStats; digest: ContentDigest; replaced: boolean }
  /** The committed content plus `extra` bytes this cursor's recorded intent explains: cut them. */
  | { kind: "tail"; stat: BigIntStats; digest: ContentDigest; extra: number }
  /** Anything else; `reasons` say what changed, for the message. */
  | { kind: "changed"; stat: BigIntStats | undefined; reasons: string[] };

const n = (x: number) => x.toLocaleString("en-US");

async function readAt(fh: FileHandle, pos: number, len: number): Promise<Buffer> {
  const buf = Buffer.alloc(len);
  let got = 0;
  while (got < len) {
    const { bytesRead } = await fh.read(buf, got, len - got, pos + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** Digest of the bytes [0, end) of an open file, read in large pieces. */
async function digestOf(fh: FileHandle, end: number): Promise<ContentDigest> {
  const d = new ContentDigest();
  for (let pos = 0; pos < end; ) {
    const buf = await readAt(fh, pos, Math.min(READ_SIZE, end - pos));
    if (buf.length === 0) break;
    d.update(buf);
    pos += buf.length;
  }
  return d;
}

/** Says, as well as the first bytes allow, how a file differs from what was committed. */
export async function describeChange(
  fh: FileHandle,
  size: number,
  replaced: boolean,
  committed: number,
  prefixIntact: boolean,
): Promise<string[]> {
  const first = await readAt(fh, 0, Math.min(size, CHUNK));
  const reasons: string[] = [];
  if (first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf)
    reasons.push("starts with a byte-order mark now");
  else if ((first[0] === 0xff && first[1] === 0xfe) || (first[0] === 0xfe && first[1] === 0xff))
    reasons.push("was re-encoded (it is UTF-16 now)");
  const nl = first.indexOf(0x0a);
  if (nl > 0 && first[nl - 1] === 0x0d) reasons.push("has CRLF line ends now");
  if (replaced) reasons.push("was replaced (a different file has this name now)");
  if (size < committed) reasons.push(`is ${n(committed - size)} bytes shorter than this cursor left it`);
  else if (size > committed && prefixIntact)
    reasons.push(
      `is ${n(size - committed)} bytes longer than this cursor left it and the extra bytes were not written by partner-cli`,
    );
  else if (reasons.length === 0)
    reasons.push(
      size === committed
        ? "was changed (same length, different content)"
        : `was changed: the ${n(committed)} bytes this cursor wrote are not at its start any more (it is ${n(size)} bytes now)`,
    );
  return reasons;
}

/** The file's status, or undefined when there is no file. */
async function statIfAny(path: string): Promise<BigIntStats | undefined> {
  try {
    return await stat(path, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    return undefined;
  }
}

/**
 * Checks `path` against the content a checkpoint committed (`state`), or, for a checkpoint saved by
 * an older partner-cli, against its committed length alone (`state` = {bytes}). Reads only.
 */
export async function inspectOutput(
  path: string,
  state: FileState | { bytes: number } | undefined,
): Promise<Verdict> {
  const committed = state?.bytes ?? 0;
  const st = await statIfAny(path);
  if (st && !st.isFile()) return { kind: "changed", stat: st, reasons: ["is not a regular file"] };
  const size = st ? Number(st.size) : 0;
  if (!st || size === 0) {
    if (committed === 0) return { kind: "absent", size, stat: st };
    return {
      kind: "changed",
      stat: st,
      reasons: [
        `${st ? "is empty now" : "no longer exists"}, though this cursor committed ${n(committed)} bytes to it`,
      ],
    };
  }
  if (committed === 0 && !(state && "crc32" in state)) {
    // Nothing committed and nothing known: a file this cursor never wrote to.
    return { kind: "changed", stat: st, reasons: ["is not empty"] };
  }
  const fh = await open(path, "r");
  try {
    const full = state && "crc32" in state ? state : undefined;
    const replaced = full ? full.dev !== String(st.dev) || full.ino !== String(st.ino) : false;
    if (
      full &&
      !replaced &&
      size === committed &&
      full.mtimeNs === String(st.mtimeNs) &&
      full.ctimeNs === String(st.ctimeNs)
    ) {
      // Untouched since the last commit: the two blocks confirm it without reading the rest.
      const head = await readAt(fh, 0, Math.min(BLOCK, committed));
      const tail = await readAt(fh, Math.max(0, committed - BLOCK), Math.min(BLOCK, committed));
      if (sha(head) === full.head && sha(tail) === full.tail)
        return { kind: "intact", stat: st, digest: ContentDigest.resume(full, head, tail), replaced: false };
      return {
        kind: "changed",
        stat: st,
        reasons: await describeChange(fh, size, false, committed, false),
      };
    }
    if (size < committed)
      return {
        kind: "changed",
        stat: st,
        reasons: await describeChange(fh, size, replaced, committed, false),
      };
    const digest = await digestOf(fh, committed);
    const prefixIntact = full ? sameContent(digest.snapshot(), full) : true;
    if (!prefixIntact)
      return {
        kind: "changed",
        stat: st,
        reasons: await describeChange(fh, size, replaced, committed, false),
      };
    if (size === committed) return { kind: "intact", stat: st, digest, replaced };
    const extra = size - committed;
    const intent = full?.intent;
    if (
      intent &&
      extra <= intent.length &&
      intentExplains(intent, committed, await readAt(fh, committed, extra))
    )
      return { kind: "tail", stat: st, digest, extra };
    const reasons = await describeChange(fh, size, replaced, committed, true);
    if (!full)
      reasons.push(
        "(the cursor was saved by an older partner-cli, which kept no record of its writes, so its unfinished write cannot be told from bytes added by someone else)",
      );
    return { kind: "changed", stat: st, reasons };
  } finally {
    await fh.close();
  }
}

/** The kind of content a file starts with, to name it in messages: csv, ndjson or unknown. */
export async function sniffFormat(path: string): Promise<"csv" | "ndjson" | "unknown"> {
  try {
    const fh = await open(path, "r");
    try {
      const first = (await readAt(fh, 0, 64)).toString("utf8");
      if (first.startsWith("{")) return "ndjson";
      if (/^(\uFEFF)?"?id"?,/.test(first)) return "csv";
      return "unknown";
    } finally {
      await fh.close();
    }
  } catch {
    return "unknown";
  }
}

// ---- writing ----

export interface DurableOutput {
  /** The file (resolved path), or null for stdout. */
  readonly path: string | null;
  /** Committed length (0 for stdout until something was written). */
  readonly committed: number;
  /** True when the file holds nothing yet (a CSV header is due); always true for stdout. */
  readonly empty: boolean;
  /** The committed content's state, for the checkpoint (null for stdout). */
  state(): FileState | null;
  /** The intent record for appending `buf` next (null for stdout: nothing to repair there). */
  intentFor(buf: Buffer): Intent | null;
  /** Appends `buf` and makes it durable (fsync). A failed write is cut back to the committed length. */
  append(buf: Buffer): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens `path` for appending after a Verdict allowed it: the file must still be the one inspected
 * (same identity and length), else nothing is written. A "tail" verdict's extra bytes are cut here,
 * after `beforeWrite` (the lock check) passed.
 */
export async function openFileOutput(
  path: string,
  format: string,
  v: Extract<Verdict, { kind: "absent" | "intact" | "tail" }>,
  beforeWrite: () => void,
): Promise<DurableOutput> {
  let fh: FileHandle;
  try {
    // A new file is created 0600 whatever the umask (it holds redemptions); an existing one keeps its mode.
    fh = (await openPrivateAppend(path)).fh;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const machine = machineFailure(withPath(err, path), { kept: NOTHING_WRITTEN });
    if (machine) throw machine;
    throw new UsageError(
      `Cannot open ${path} for appending (${code}).`,
      code === "ENOENT" ? "Its directory does not exist; create it or choose another --out." : undefined,
    );
  }
  try {
    let st = await fh.stat({ bigint: true });
    const expectedSize = v.kind === "absent" ? v.size : Number(v.stat.size);
    const sameFile = v.kind === "absent" && !v.stat ? true : v.stat!.dev === st.dev && v.stat!.ino === st.ino;
    if (!sameFile || Number(st.size) !== expectedSize) {
      throw new UsageError(
        `${path} changed while this run was starting (another program is writing to it); nothing was written.`,
        "Find out what else writes to it; run again when it is left alone.",
      );
    }
    const digest = v.kind === "absent" ? new ContentDigest() : v.digest;
    if (v.kind === "tail") {
      beforeWrite();
      await fh.truncate(digest.bytes);
      await fh.sync();
      st = await fh.stat({ bigint: true });
    }
    let ident = identityOf(st);
    let committed = digest.bytes;
    return {
      path,
      get committed() {
        return committed;
      },
      get empty() {
        return committed === 0;
      },
      state() {
        return { path, format, ...digest.snapshot(), ...ident, intent: null };
      },
      intentFor(buf) {
        return intentFor(committed, buf);
      },
      async append(buf) {
        if (buf.length === 0) return;
        try {
          for (let off = 0; off < buf.length; )
            off += (await fh.write(buf, off, buf.length - off)).bytesWritten;
          await fh.sync();
        } catch (err) {
          // Leave nothing uncommitted behind (disk full): these bytes are this run's own.
          await fh.truncate(committed).catch(() => {});
          throw withPath(err, path);
        }
        digest.update(buf);
        committed += buf.length;
        ident = identityOf(await fh.stat({ bigint: true }));
      },
      async close() {
        await fh.close();
      },
    };
  } catch (err) {
    await fh.close().catch(() => {});
    throw err;
  }
}

export function streamOutput(stream: Writable): DurableOutput {
  let size = 0;
  return {
    path: null,
    get committed() {
      return size;
    },
    empty: true,
    state: () => null,
    intentFor: () => null,
    async append(buf) {
      size += buf.length;
      if (!stream.write(buf)) await new Promise<void>((r) => stream.once("drain", () => r()));
    },
    async close() {},
  };
}
