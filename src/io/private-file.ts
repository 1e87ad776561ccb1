// Files that hold private data (emails, private stats URLs, rejected rows, redemptions) are created
// 0600 whatever the umask: the mode given to open() is masked by the umask, so it is set again with
// fchmod on the open handle before a byte is written. A file that already exists keeps its mode: an
// output replaced by rename takes the mode of the file it replaces, an appended file is not touched.
import { randomBytes } from "node:crypto";
import { chmod, type FileHandle, open, rename, rm, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Writable } from "node:stream";
import { type CliError, UsageError } from "../errors.js";
import { machineFailure, withPath } from "./machine-failure.js";

/** Owner read and write, nobody else. */
const PRIVATE_FILE_MODE = 0o600;

/** Creates `path` (it must not exist) with `mode`, set with fchmod so the umask cannot change it. */
export function createPrivateFile(path: string, mode = PRIVATE_FILE_MODE): Promise<FileHandle> {
  return createWithMode(path, "wx", mode);
}

/**
 * Opens `path` for appending. A missing file is created 0600 (`created: true`); an existing one is
 * opened as it is, its mode unchanged. For outputs that grow across runs (the redemptions export).
 */
export async function openPrivateAppend(
  path: string,
  o: { read?: boolean } = {},
): Promise<{ fh: FileHandle; created: boolean }> {
  try {
    return { fh: await createWithMode(path, o.read ? "ax+" : "ax", PRIVATE_FILE_MODE), created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return { fh: await open(path, o.read ? "a+" : "a"), created: false };
}

async function createWithMode(path: string, flags: "wx" | "ax" | "ax+", mode: number): Promise<FileHandle> {
  const fh = await open(path, flags, mode);
  try {
    await fh.chmod(mode);
  } catch (err) {
    await fh.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw err;
  }
  return fh;
}

/**
 * A new temporary file beside `finalPath`, to be renamed onto it once complete. Its mode is 0600, or
 * the mode of the file at `finalPath` when one exists (replacing a file keeps its permissions).
 */
async function createTempBeside(finalPath: string): Promise<{ tmp: string; fh: FileHandle }> {
  const existing = await stat(finalPath).catch(() => undefined);
  const mode = existing?.isFile() ? existing.mode & 0o7777 : PRIVATE_FILE_MODE;
  const tmp = join(
    dirname(finalPath),
    `.${basename(finalPath)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  return { tmp, fh: await createPrivateFile(tmp, mode) };
}

/** A file being written under a temporary name beside its final name. */
export interface TempOutput {
  readonly tmp: string;
  /** Write here; errors are kept and reported by finish(). */
  readonly stream: Writable;
  /** Ends the stream if needed, waits until the data is fsynced and closed, renames it into place. */
  finish(): Promise<void>;
  /** Stops writing and removes the temporary file; the final name is left as it was. */
  discard(): Promise<void>;
}

/**
 * Opens a temporary file beside `finalPath` (created 0600, or with the mode of the file it will
 * replace) for a write-then-rename output: nothing appears under `finalPath` until finish().
 */
export async function openTempOutput(finalPath: string): Promise<TempOutput> {
  const { tmp, fh } = await createTempBeside(finalPath);
  // flush: the stream fsyncs the file before closing it, so a rename never publishes unsynced data.
  const stream = fh.createWriteStream({ flush: true });
  let error: unknown;
  stream.on("error", (err) => {
    error ??= err;
  });
  const closed = new Promise<void>((resolve) => stream.once("close", () => resolve()));
  return {
    tmp,
    stream,
    async finish() {
      if (!stream.writableEnded) stream.end();
      await closed;
      try {
        if (error !== undefined) throw error;
        await rename(tmp, finalPath);
      } catch (err) {
        await unlink(tmp).catch(() => {});
        throw err;
      }
      await syncFolder(dirname(finalPath));
    },
    async discard() {
      stream.destroy();
      await closed;
      await unlink(tmp).catch(() => {});
    },
  };
}

/**
 * Replaces `file` with `text`, whole or not at all: a private temporary file beside it (0600 whatever
 * the umask), written, fsynced and renamed over it. On failure the temporary file is removed and the
 * error (raw, for the caller to name) thrown: `file` is as it was. The file calls run on libuv's
 * threads. For small state files saved often (the config store, cursor checkpoints).
 */
export async function replaceFile(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fh = await open(tmp, "wx", PRIVATE_FILE_MODE);
    try {
      await fh.writeFile(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // The mode given to open is reduced by the umask; the file must end up exactly 0600.
    await chmod(tmp, PRIVATE_FILE_MODE);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
}

/** Makes a rename in `dir` durable (fsync of the folder); a no-op where folders cannot be synced. */
export async function syncFolder(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch {
    // some file systems (and Windows) do not sync folders; the data itself was already synced
  } finally {
    await fh?.close().catch(() => {});
  }
}

/**
 * A file that could not be written. The operator's own mistakes (a folder that does not exist, a
 * folder named as the file) are usage errors (exit 2); the machine's failures (a full or read-only
 * disk, permissions, I/O errors) are MachineErrors (exit 10) from machineFailure, the one place that
 * words them.
 */
export function fileWriteError(path: string, err: unknown): CliError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === "ENOENT") return new UsageError(`Cannot write ${path}: the folder does not exist.`);
  if (e.code === "EISDIR") return new UsageError(`Cannot write ${path}: it is a folder.`);
  const machine = machineFailure(withPath(err, path), {
    path,
    kept: `Nothing was written to ${path}: it is written whole or not at all (a temporary file renamed when complete).`,
  });
  return machine ?? new UsageError(`Cannot write ${path}: ${e.message ?? String(err)}.`);
}

/** Writes `text` to `path` whole or not at all (temporary file, fsync, rename; created 0600). */
export async function writeWholeFile(path: string, text: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`Cannot write ${path}: it is a folder.`);
  let temp: TempOutput;
  try {
    temp = await openTempOutput(path);
  } catch (err) {
    throw fileWriteError(path, err);
  }
  try {
    temp.stream.end(text);
    await temp.finish();
  } catch (err) {
    await temp.discard().catch(() => {});
    throw fileWriteError(path, err);
  }
}
