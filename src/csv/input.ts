// Opening an input file: a path, "-" for stdin, /dev/stdin, a named pipe (FIFO) or a shell's
// `<(...)`. A regular file is read from its own descriptor, as often as needed. Anything else can be
// read once only, so when a command needs two passes (check everything, then send) the first pass
// copies the bytes into a private temporary file (mode 0600 in a fresh 0700 directory, removed at the
// end, even after an error or Ctrl-C; on POSIX systems it is unlinked at once and lives only as an
// open descriptor) and the second pass reads that copy.
// Such an input is read up to a limit (`maxBytes`, --max-input-size; 2 GB by default): an endless
// pipe stops there with a usage error, nothing sent and the copy gone, instead of filling the disk.
import { rmSync } from "node:fs";
import { type FileHandle, mkdtemp, open, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { UsageError } from "../errors.js";

const CHUNK = 64 * 1024;

export interface InputFile {
  /** The file as named in messages: the path, or "stdin" for "-". */
  readonly name: string;
  /** Not a regular file (stdin, a pipe, a FIFO, a terminal): read once, up to the size limit. */
  readonly piped: boolean;
  /** The bytes from the start. Can be called again when the input was opened with `passes: 2`. */
  bytes(): AsyncIterable<Uint8Array>;
  /** Releases the descriptor and removes any temporary copy. */
  close(): Promise<void>;
}

function readError(path: string, err: unknown): UsageError {
  const e = err as NodeJS.ErrnoException;
  const why =
    e.code === "ENOENT"
      ? "no such file"
      : e.code === "EISDIR"
        ? "it is a folder, not a file"
        : e.code === "EACCES" || e.code === "EPERM"
          ? "permission denied"
          : (e.message ?? String(err));
  return new UsageError(`Cannot read ${path}: ${why}.`);
}

/** Reads a descriptor in chunks: from `position` on a regular file, sequentially otherwise. */
async function* fromHandle(
  fh: FileHandle,
  name: string,
  positional: boolean,
  end?: number,
): AsyncGenerator<Uint8Array> {
  let pos = 0;
  for (;;) {
    const want = end === undefined ? CHUNK : Math.min(CHUNK, end - pos);
    if (want <= 0) return;
    const buf = Buffer.allocUnsafe(want);
    let n: number;
    try {
      ({ bytesRead: n } = await fh.read(buf, 0, want, positional ? pos : null));
    } catch (err) {
      throw readError(name, err);
    }
    if (n === 0) return;
    pos += n;
    yield n === want ? buf : buf.subarray(0, n);
  }
}

async function* fromStream(stream: Readable): AsyncGenerator<Uint8Array> {
  for await (const c of stream) yield Buffer.isBuffer(c) ? c : Buffer.from(String(c));
}

/** A private temporary file for a copy of the input (exported for its test). */
export async function makeSpool(): Promise<{ fh: FileHandle; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "partner-cli-input-")); // mode 0700
  const path = join(dir, "input");
  let fh: FileHandle;
  try {
    fh = await open(path, "wx+", 0o600);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  // POSIX: nothing is left under any name; the open descriptor is the only way in.
  try {
    await unlink(path);
    await rm(dir, { recursive: true, force: true });
    return { fh, cleanup: async () => {} };
  } catch {
    // Windows cannot unlink an open file: remove it when done, and at exit in any case.
    const onExit = () => rmSync(dir, { recursive: true, force: true });
    process.once("exit", onExit);
    return {
      fh,
      cleanup: async () => {
        process.off("exit", onExit);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
}

/** The most read from a pipe or stdin unless --max-input-size says otherwise. */
export const DEFAULT_MAX_INPUT_BYTES = 2_000_000_000;

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  tib: 1024 ** 4,
};

/**
 * A size: a whole or decimal number and a unit, any case: B, KB, MB, GB, TB (powers of 1,000; K, M,
 * G, T alone too) or KiB, MiB, GiB, TiB (powers of 1,024); no unit: bytes. Undefined when not a
 * size of at least one byte.
 */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) return undefined;
  const n = Math.floor(Number(m[1]) * unit);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}

/** "2 GB", "500 MB", "1.5 GB", "1,024 bytes": a limit as messages show it (powers of 1,000). */
export function formatByteSize(n: number): string {
  for (const [unit, size] of [
    ["TB", 1e12],
    ["GB", 1e9],
    ["MB", 1e6],
    ["KB", 1e3],
  ] as const) {
    if (n >= size) return `${Math.round((n / size) * 10) / 10} ${unit}`;
  }
  return `${n.toLocaleString("en-US")} bytes`;
}

export interface OpenInputOptions {
  passes: 1 | 2;
  /** The most read from an input that is not a regular file (default DEFAULT_MAX_INPUT_BYTES). */
  maxBytes?: number | undefined;
  /** What raises the limit, for its message ("--max-input-size"); undefined: it cannot be raised. */
  limitFlag?: string | undefined;
  /** Called with the bytes read so far from an input that is not a regular file, and once at its end. */
  onRead?: ((bytes: number, done: boolean) => void) | undefined;
}

/** The input went past the limit: a usage error naming the limit and the flag that raises it. */
function tooLarge(name: string, max: number, flag: string | undefined): UsageError {
  return new UsageError(
    `${name} is larger than ${formatByteSize(max)}, the most read from a pipe or stdin${flag ? ` (${flag})` : ""}; it was not read further. Nothing was sent.`,
    flag
      ? `If the input is really that large, raise the limit, e.g. ${flag} ${formatByteSize(max * 5).replace(" ", "")}, or save it to a file and import the file (a file has no limit).`
      : "Save it to a file and use the file.",
  );
}

/** Bytes of a piped input, counted: past `max`, a usage error (the caller closes the input). */
async function* bounded(
  chunks: AsyncIterable<Uint8Array>,
  name: string,
  o: OpenInputOptions,
): AsyncGenerator<Uint8Array> {
  const max = o.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  let size = 0;
  for await (const c of chunks) {
    size += c.length;
    if (size > max) throw tooLarge(name, max, o.limitFlag);
    o.onRead?.(size, false);
    yield c;
  }
  o.onRead?.(size, true);
}

/** A named input opened: a regular file (read twice, checked for changes by `stamp`) or a FIFO. */
async function openFile(path: string): Promise<{ fh?: FileHandle; regular: boolean; stamp: string }> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, "r");
    const st = await fh.stat();
    if (st.isDirectory()) throw Object.assign(new Error("EISDIR"), { code: "EISDIR" });
    return { fh, regular: st.isFile(), stamp: `${st.size}/${st.mtimeMs}` };
  } catch (err) {
    await fh?.close().catch(() => {});
    throw readError(path, err);
  }
}

/**
 * Opens an input for reading once (`passes: 1`) or twice (`passes: 2`). Errors opening it are usage
 * errors naming the file.
 */
export async function openInput(path: string, stdin: Readable, o: OpenInputOptions): Promise<InputFile> {
  const name = path === "-" ? "stdin" : path;
  const { fh, regular, stamp } = path === "-" ? { regular: false, stamp: "" } : await openFile(path);
  const source = (): AsyncIterable<Uint8Array> =>
    regular
      ? fromHandle(fh!, name, true)
      : bounded(fh ? fromHandle(fh, name, false) : fromStream(stdin), name, o);
  const closeSource = async () => {
    await fh?.close().catch(() => {});
  };

  if (regular || o.passes === 1) {
    let reads = 0;
    return {
      name,
      piped: !regular,
      bytes() {
        reads++;
        if (reads > 1 && !regular) throw new Error(`${name} can be read once only`);
        if (reads > 1 && fh) return checkedAgain(fh, name, stamp);
        return source();
      },
      close: closeSource,
    };
  }

  // A pipe, FIFO or terminal read twice: the first read copies it.
  let spool: Awaited<ReturnType<typeof makeSpool>> | undefined;
  let spooled = -1; // bytes in the copy once the first read has finished
  let reads = 0;
  return {
    name,
    piped: true,
    bytes() {
      reads++;
      if (reads === 1) return copying();
      if (spooled < 0) throw new Error(`${name}: the first read did not finish`);
      return fromHandle(spool!.fh, name, true, spooled);
    },
    async close() {
      await closeSource();
      if (spool) {
        await spool.fh.close().catch(() => {});
        await spool.cleanup().catch(() => {});
      }
    },
  };

  async function* copying(): AsyncGenerator<Uint8Array> {
    try {
      spool = await makeSpool();
    } catch (err) {
      throw new UsageError(
        `Cannot make a temporary copy of ${name}: ${(err as Error).message}.`,
        "Save the input to a file and import that file.",
      );
    }
    let size = 0;
    for await (const chunk of source()) {
      try {
        await spool.fh.write(chunk, 0, chunk.length, size);
      } catch (err) {
        throw new UsageError(
          `Cannot make a temporary copy of ${name}: ${(err as Error).message}.`,
          "Free some space in the temporary folder (TMPDIR), or save the input to a file and import that file.",
        );
      }
      size += chunk.length;
      yield chunk;
    }
    spooled = size;
  }
}

/** The second read of a regular file: refused when the file changed since it was opened. */
async function* checkedAgain(fh: FileHandle, name: string, stamp: string): AsyncGenerator<Uint8Array> {
  const st = await fh.stat();
  if (`${st.size}/${st.mtimeMs}` !== stamp) {
    throw new UsageError(
      `${name} changed while it was being read. Nothing was sent.`,
      "Import it again once whatever writes it has finished.",
    );
  }
  yield* fromHandle(fh, name, true);
}
