// The local event store: an NDJSON file, one event envelope per line exactly as received, each event
// id at most once. Shared by `webhooks listen` (deliveries) and `events sync` (the log), which may run
// at the same time on one file: every append takes a short lock on the file, first reads whatever
// another process appended since (so its ids are known), writes only the new envelopes, and fsyncs
// before returning. A caller acknowledges a delivery, or saves a cursor, only after append() resolved.
import { type FileHandle, open, stat, truncate } from "node:fs/promises";
import { releaseLock, tryLock } from "../export/run-lock.js";

export interface StoredEnvelope {
  /** The envelope id (de-duplication key). */
  id: string;
  /** The envelope as one JSON line (no trailing newline); for deliveries, the raw body as received. */
  line: string;
}

export interface AppendResult {
  /** Ids written by this call. */
  appended: string[];
  /** Ids skipped because the store already had them. */
  duplicates: string[];
}

export interface EventStore {
  readonly path: string;
  /** Number of distinct event ids in the file (as last seen by this process). */
  readonly count: number;
  /** Bytes removed at open: a partial last line left by a process killed mid-write (never acknowledged). */
  readonly repairedBytes: number;
  has(id: string): boolean;
  /** Appends the envelopes not yet stored (first occurrence wins), durably (fsync). */
  append(items: readonly StoredEnvelope[]): Promise<AppendResult>;
  close(): Promise<void>;
}

/** Extracts the envelope id of one stored line (undefined for a line that is not an envelope). */
function idOfLine(line: string): string | undefined {
  if (!line.trim()) return undefined;
  try {
    const v = JSON.parse(line) as { id?: unknown };
    return typeof v?.id === "string" ? v.id : undefined;
  } catch {
    return undefined;
  }
}

/** Makes a body one NDJSON line: compact JSON has no raw line breaks, but a pretty body would. */
export function toLine(rawBody: string): string {
  return /[\r\n]/.test(rawBody) ? JSON.stringify(JSON.parse(rawBody)) : rawBody;
}

/**
 * The append lock: `<store>.lock` holding the owner's record (see src/export/run-lock.ts: taken over
 * only when its owner process is gone, pid reuse included). It is held for the few milliseconds of
 * one append; a lock whose owner died (SIGKILL) is taken over at once.
 */
export async function lockStore(path: string, timeoutMs = 30_000): Promise<() => Promise<void>> {
  const lockPath = `${path}.lock`;
  const deadline = Date.now() + timeoutMs;
  for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
    const r = tryLock(lockPath);
    if (r.held) return async () => releaseLock(lockPath, r.record.token);
    if (Date.now() > deadline)
      throw new Error(
        r.state === "unreadable"
          ? `the event store ${path} is locked by ${lockPath}, which is not a lock record; remove it if no partner-cli run is using the store`
          : `the event store ${path} stayed locked by pid ${r.owner?.pid ?? "?"} for ${timeoutMs / 1000} s`,
      );
    await new Promise((r) => setTimeout(r, wait));
  }
}

export async function openEventStore(path: string): Promise<EventStore> {
  const fh: FileHandle = await open(path, "a+", 0o644);
  const ids = new Set<string>();
  let known = 0;
  let repairedBytes = 0;
  let closed = false;

  /** Reads bytes [known, size) that another process (or an earlier run) appended; learns their ids. */
  const catchUp = async (allowRepair: boolean): Promise<void> => {
    const size = (await fh.stat()).size;
    // Read in chunks (a store can hold millions of events); a line may span two chunks.
    const CHUNK = 4 << 20;
    let carry = Buffer.alloc(0);
    let pos = known;
    while (pos < size) {
      const buf = Buffer.alloc(Math.min(CHUNK, size - pos));
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = carry.length
        ? Buffer.concat([carry, buf.subarray(0, bytesRead)])
        : buf.subarray(0, bytesRead);
      const complete = data.lastIndexOf(0x0a) + 1;
      for (const line of data.subarray(0, complete).toString("utf8").split("\n")) {
        const id = idOfLine(line);
        if (id) ids.add(id);
      }
      known += complete;
      carry = Buffer.from(data.subarray(complete));
    }
    if (carry.length && allowRepair) {
      // A line without its newline was never fsynced as a whole, so never acknowledged or covered by
      // a saved cursor: cut it, or the next append would glue an envelope to it.
      repairedBytes += carry.length;
      await truncate(path, known);
    }
  };

  const withLock = async <T>(fn: () => Promise<T>): Promise<T> => {
    const release = await lockStore(path);
    try {
      return await fn();
    } finally {
      await release();
    }
  };

  await withLock(() => catchUp(true));

  return {
    path,
    get count() {
      return ids.size;
    },
    get repairedBytes() {
      return repairedBytes;
    },
    has: (id) => ids.has(id),
    async append(items) {
      if (closed) throw new Error("event store is closed");
      const appended: string[] = [];
      const duplicates: string[] = [];
      if (items.length === 0) return { appended, duplicates };
      await withLock(async () => {
        await catchUp(true);
        const lines: string[] = [];
        for (const it of items) {
          if (ids.has(it.id)) {
            duplicates.push(it.id);
            continue;
          }
          ids.add(it.id);
          appended.push(it.id);
          lines.push(`${it.line}\n`);
        }
        if (lines.length === 0) return;
        const buf = Buffer.from(lines.join(""), "utf8");
        try {
          // "a+" appends at the end whatever the position.
          let off = 0;
          while (off < buf.length) off += (await fh.write(buf, off, buf.length - off)).bytesWritten;
          await fh.sync();
        } catch (err) {
          for (const id of appended) ids.delete(id);
          // Leave no half-written tail behind on a failed write (disk full).
          await truncate(path, known).catch(() => {});
          throw err;
        }
        known += buf.length;
      });
      return { appended, duplicates };
    },
    async close() {
      if (closed) return;
      closed = true;
      await fh.close();
    },
  };
}

/** Size of a store file (0 when it does not exist). */
export async function storeSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
