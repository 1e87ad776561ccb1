// Output for exports and event stores: appends to a file (fsync after each page, so what a saved
// cursor claims is on disk) or writes to stdout. A file knows its committed length, so a run that was
// killed between writing and saving its cursor can be repaired by cutting the uncommitted tail.
import { type FileHandle, open, stat, truncate } from "node:fs/promises";
import type { Writable } from "node:stream";

export interface DurableOutput {
  /** Absolute path, or null for stdout. */
  readonly path: string | null;
  /** Bytes known to be in the file (committed or not). */
  readonly size: number;
  /** True when nothing was ever written to this output (a CSV header is due). */
  readonly empty: boolean;
  write(text: string): Promise<void>;
  /** Flushes to stable storage (fsync for files). Returns the committed size. */
  commit(): Promise<number>;
  close(): Promise<void>;
}

/** Cuts a file back to `committedBytes` if a killed run left more. Returns the bytes removed. */
export async function repairTail(path: string, committedBytes: number): Promise<number> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return 0;
  }
  if (size <= committedBytes) return 0;
  await truncate(path, committedBytes);
  return size - committedBytes;
}

export async function openFileOutput(path: string): Promise<DurableOutput> {
  const fh: FileHandle = await open(path, "a", 0o644);
  let size = (await fh.stat()).size;
  const startedEmpty = size === 0;
  let pending = "";
  return {
    path,
    get size() {
      return size + Buffer.byteLength(pending);
    },
    empty: startedEmpty,
    async write(text) {
      pending += text;
      if (pending.length > 1 << 20) {
        const buf = Buffer.from(pending);
        pending = "";
        await fh.write(buf);
        size += buf.length;
      }
    },
    async commit() {
      if (pending) {
        const buf = Buffer.from(pending);
        pending = "";
        await fh.write(buf);
        size += buf.length;
      }
      await fh.sync();
      return size;
    },
    async close() {
      await fh.close();
    },
  };
}

export function streamOutput(stream: Writable): DurableOutput {
  let size = 0;
  return {
    path: null,
    get size() {
      return size;
    },
    empty: true,
    async write(text) {
      size += Buffer.byteLength(text);
      if (!stream.write(text)) await new Promise<void>((r) => stream.once("drain", () => r()));
    },
    async commit() {
      return size;
    },
    async close() {},
  };
}
