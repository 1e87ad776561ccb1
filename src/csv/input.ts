// Opening an input file: a path, "-" for stdin, /dev/stdin, a named pipe (FIFO) or a shell's
// `<(...)`. A regular file is read from its own descriptor, as often as needed. Anything else can be
// read once only, so when a command needs two passes (check everything, then send) the first pass
// copies the bytes into a private temporary file (mode 0600 in a fresh 0700 directory, removed at the
// end, even after an error or Ctrl-C; on POSIX systems it is unlinked at once and lives only as an
// open descriptor) and the second pass reads that copy.
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

/**
 * Opens an input for reading once (`passes: 1`) or twice (`passes: 2`). Errors opening it are usage
 * errors naming the file.
 */
export async function openInput(path: string, stdin: Readable, o: { passes: 1 | 2 }): Promise<InputFile> {
  const name = path === "-" ? "stdin" : path;
  let fh: FileHandle | undefined;
  let regular = false;
  let stamp = "";
  if (path !== "-") {
    try {
      fh = await open(path, "r");
      const st = await fh.stat();
      if (st.isDirectory()) throw Object.assign(new Error("EISDIR"), { code: "EISDIR" });
      regular = st.isFile();
      stamp = `${st.size}/${st.mtimeMs}`;
    } catch (err) {
      await fh?.close().catch(() => {});
      throw readError(path, err);
    }
  }
  const source = (): AsyncIterable<Uint8Array> => (fh ? fromHandle(fh, name, regular) : fromStream(stdin));
  const closeSource = async () => {
    await fh?.close().catch(() => {});
  };

  if (regular || o.passes === 1) {
    let reads = 0;
    return {
      name,
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
