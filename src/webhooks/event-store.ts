// The local event store: an NDJSON file, one event envelope per line exactly as received, each event
// id at most once. Shared by `webhooks listen` (deliveries) and `events sync` (the log), which may run
// at the same time on one file: every append takes a short lock on the file, first reads whatever
// another process appended since (so its ids are known), writes only the new envelopes, and fsyncs
// before returning. A caller acknowledges a delivery, or saves a cursor, only after append() resolved.
// The store also keeps a running digest of its complete lines (length, CRC-32, first and last 64 KiB;
// see export/durable-output.ts), which `events sync` saves with its cursor, and at open it can check
// that the lines after a saved checkpoint are all envelopes, so a re-saved or foreign file is refused
// before anything is written (commands/events/sync.ts).
import type { BigIntStats } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { ContentDigest, type ContentSnapshot, type FileState, identityOf } from "../export/durable-output.js";
import { takeLock } from "../io/file-lock.js";
import { openPrivateAppend } from "../io/private-file.js";

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
  /** The committed content (every complete line up to the last one this process saw or wrote). */
  state(): FileState;
  /** Cuts a partial last line left in place by `deferRepair` (under the store's lock); returns the bytes cut. */
  repairPartial(): Promise<number>;
  /** Appends the envelopes not yet stored (first occurrence wins), durably (fsync). */
  append(items: readonly StoredEnvelope[]): Promise<AppendResult>;
  close(): Promise<void>;
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
  const lock = await takeLock(lockPath, {
    what: `The event store ${path}`,
    wait: timeoutMs,
    refuse: (b) =>
      new Error(
        b.state === "unreadable"
          ? `the event store ${path} is locked by ${lockPath}, which is not a lock record; remove it if no partner-cli run is using the store`
          : `the event store ${path} stayed locked by pid ${b.owner?.pid ?? "?"} for ${timeoutMs / 1000} s`,
      ),
  });
  return () => lock.release();
}

/** How `openEventStore` reads what is there at open (for `events sync`'s checks). */
export interface StoreOpenOptions {
  /** Leave a partial last line in place at open (the caller checks first, then calls repairPartial()). */
  deferRepair?: boolean | undefined;
  /** Offsets at which to snapshot the content digest (the committed lengths of checkpoints). */
  snapshotAt?: readonly number[] | undefined;
  /** Check that every complete line starting at or after this offset is an event envelope. */
  checkFrom?: number | undefined;
}

/** What the read at open found. */
export interface StoreScan {
  /** The file at open. */
  stat: BigIntStats;
  size: number;
  /** Content digests of [0, offset) for each requested offset that is a line end within the file. */
  snapshots: Map<number, ContentSnapshot>;
  /** The first complete line from `checkFrom` on that is not an event envelope. */
  badLine?: { offset: number; line: number; reason: string } | undefined;
  /** organizationId values of the envelopes checked. */
  organizationIds: Set<string>;
  /** A last line without its newline (left in place with deferRepair). */
  partial: Buffer | null;
}

/** Why one stored line is not an event envelope line, or undefined when it is one. */
function lineProblem(buf: Buffer, v: unknown): string | undefined {
  if (buf.length === 0) return "is empty";
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return "starts with a byte-order mark";
  if (buf[buf.length - 1] === 0x0d) return "ends with CR (CRLF line ends)";
  if (v === undefined) return "is not JSON";
  if (typeof v !== "object" || v === null || typeof (v as { id?: unknown }).id !== "string")
    return "is not an event envelope (no id)";
  return undefined;
}

export async function openEventStore(
  path: string,
  o: StoreOpenOptions = {},
): Promise<EventStore & { scan: StoreScan }> {
  // The store holds the organization's event data: a new one is created 0600 whatever the umask.
  const { fh } = await openPrivateAppend(path, { read: true });
  const ids = new Set<string>();
  let known = 0;
  let lines = 0;
  let repairedBytes = 0;
  let closed = false;
  // The digest of [0, known): what a checkpoint records as the committed content.
  const digest = new ContentDigest();
  const offsets = [...new Set(o.snapshotAt ?? [])].filter((x) => x > 0).sort((a, b) => a - b);
  let nextSnap = 0;
  let lastStat = await fh.stat({ bigint: true });
  const scan: StoreScan = {
    stat: lastStat,
    size: Number(lastStat.size),
    snapshots: new Map(),
    organizationIds: new Set(),
    partial: null,
  };
  const checkFrom = o.checkFrom;

  /** Adds [at, at + buf.length) to the digest, snapshotting at the requested offsets on the way. */
  const digestUpdate = (buf: Buffer, at: number) => {
    let p = 0;
    while (nextSnap < offsets.length && offsets[nextSnap]! <= at + buf.length) {
      const cut = offsets[nextSnap]! - at;
      digest.update(buf.subarray(p, cut));
      p = cut;
      scan.snapshots.set(offsets[nextSnap]!, digest.snapshot());
      nextSnap++;
    }
    digest.update(buf.subarray(p));
  };

  /** Reads bytes [known, size) that another process (or an earlier run) appended; learns their ids. */
  const catchUp = async (allowRepair: boolean): Promise<void> => {
    lastStat = await fh.stat({ bigint: true });
    const size = Number(lastStat.size);
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
      for (let s = 0; s < complete; ) {
        const e = data.indexOf(0x0a, s);
        const lineBuf = data.subarray(s, e);
        let v: unknown;
        if (lineBuf.length) {
          try {
            v = JSON.parse(lineBuf.toString("utf8"));
          } catch {
            v = undefined;
          }
        }
        const id = (v as { id?: unknown } | undefined)?.id;
        if (typeof id === "string") ids.add(id);
        lines++;
        if (checkFrom !== undefined && known + s >= checkFrom) {
          const problem = lineProblem(lineBuf, v);
          if (problem) scan.badLine ??= { offset: known + s, line: lines, reason: problem };
          else {
            const org = (v as { organizationId?: unknown }).organizationId;
            if (typeof org === "string") scan.organizationIds.add(org);
          }
        }
        s = e + 1;
      }
      digestUpdate(data.subarray(0, complete), known);
      known += complete;
      carry = Buffer.from(data.subarray(complete));
    }
    if (carry.length && allowRepair) {
      // A line without its newline was never fsynced as a whole, so never acknowledged or covered by
      // a saved cursor: cut it, or the next append would glue an envelope to it.
      repairedBytes += carry.length;
      await fh.truncate(known);
      lastStat = await fh.stat({ bigint: true });
    } else if (carry.length) scan.partial = carry;
  };

  const withLock = async <T>(fn: () => Promise<T>): Promise<T> => {
    const release = await lockStore(path);
    try {
      return await fn();
    } finally {
      await release();
    }
  };

  await withLock(() => catchUp(!o.deferRepair));

  return {
    path,
    scan,
    get count() {
      return ids.size;
    },
    get repairedBytes() {
      return repairedBytes;
    },
    has: (id) => ids.has(id),
    state() {
      return { path, format: "events", ...digest.snapshot(), ...identityOf(lastStat), intent: null };
    },
    async repairPartial() {
      const before = repairedBytes;
      await withLock(() => catchUp(true));
      return repairedBytes - before;
    },
    async append(items) {
      if (closed) throw new Error("event store is closed");
      const appended: string[] = [];
      const duplicates: string[] = [];
      if (items.length === 0) return { appended, duplicates };
      await withLock(async () => {
        await catchUp(true);
        const fresh: string[] = [];
        for (const it of items) {
          if (ids.has(it.id)) {
            duplicates.push(it.id);
            continue;
          }
          ids.add(it.id);
          appended.push(it.id);
          fresh.push(`${it.line}\n`);
        }
        if (fresh.length === 0) return;
        const buf = Buffer.from(fresh.join(""), "utf8");
        try {
          // "a+" appends at the end whatever the position.
          let off = 0;
          while (off < buf.length) off += (await fh.write(buf, off, buf.length - off)).bytesWritten;
          await fh.sync();
        } catch (err) {
          for (const id of appended) ids.delete(id);
          // Leave no half-written tail behind on a failed write (disk full).
          await fh.truncate(known).catch(() => {});
          throw err;
        }
        digestUpdate(buf, known);
        known += buf.length;
        lastStat = await fh.stat({ bigint: true });
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
