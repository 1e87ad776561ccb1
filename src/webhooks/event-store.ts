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
import type { FileHandle } from "node:fs/promises";
import { ContentDigest, type ContentSnapshot, type FileState, identityOf } from "../export/durable-output.js";
import { takeLock } from "../io/file-lock.js";
import { withPath } from "../io/machine-failure.js";
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
 * The append lock: `<store>.lock` (src/io/file-lock.ts: held by the OS, released when its holder
 * ends, SIGKILL included). It is held for the few milliseconds of one append.
 */
export async function lockStore(path: string, timeoutMs = 30_000): Promise<() => Promise<void>> {
  const lock = await takeLock(`${path}.lock`, {
    what: `The event store ${path}`,
    wait: timeoutMs,
    refuse: (b) =>
      new Error(
        `the event store ${path} stayed locked${b.owner ? ` by pid ${b.owner.pid} on host ${b.owner.host}` : ""} for ${timeoutMs / 1000} s`,
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

/** An open store together with what the read at open found. */
export type OpenedEventStore = EventStore & { scan: StoreScan };

/** Reads bytes in chunks (a store can hold millions of events); a line may span two chunks. */
const READ_CHUNK = 4 << 20;

/**
 * An open store over explicit state: the file, the ids it holds, and the committed content
 * [0, known) with its running digest. Every read and write happens under the store's lock.
 */
class StoreFile implements OpenedEventStore {
  readonly scan: StoreScan;
  private readonly ids = new Set<string>();
  /** Bytes of complete lines seen or written: the committed content. */
  private known = 0;
  private lines = 0;
  private repaired = 0;
  private closed = false;
  /** The digest of [0, known): what a checkpoint records as the committed content. */
  private readonly digest = new ContentDigest();
  /** Offsets to snapshot the digest at, ascending, and the next one due. */
  private readonly offsets: number[];
  private nextSnap = 0;

  constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    private lastStat: BigIntStats,
    private readonly o: StoreOpenOptions,
  ) {
    this.offsets = [...new Set(o.snapshotAt ?? [])].filter((x) => x > 0).sort((a, b) => a - b);
    this.scan = {
      stat: lastStat,
      size: Number(lastStat.size),
      snapshots: new Map(),
      organizationIds: new Set(),
      partial: null,
    };
  }

  get count(): number {
    return this.ids.size;
  }

  get repairedBytes(): number {
    return this.repaired;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  state(): FileState {
    const { path } = this;
    return { path, format: "events", ...this.digest.snapshot(), ...identityOf(this.lastStat), intent: null };
  }

  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    const release = await lockStore(this.path);
    try {
      return await fn();
    } finally {
      await release();
    }
  }

  /** Adds [at, at + buf.length) to the digest, snapshotting at the requested offsets on the way. */
  private digestUpdate(buf: Buffer, at: number): void {
    let p = 0;
    const offsets = this.offsets;
    while (this.nextSnap < offsets.length && offsets[this.nextSnap]! <= at + buf.length) {
      const cut = offsets[this.nextSnap]! - at;
      this.digest.update(buf.subarray(p, cut));
      p = cut;
      this.scan.snapshots.set(offsets[this.nextSnap]!, this.digest.snapshot());
      this.nextSnap++;
    }
    this.digest.update(buf.subarray(p));
  }

  /** Learns one complete line at `offset`: its id, and (from checkFrom on) whether it is an envelope. */
  private learnLine(lineBuf: Buffer, offset: number): void {
    let v: unknown;
    if (lineBuf.length) {
      try {
        v = JSON.parse(lineBuf.toString("utf8"));
      } catch {
        v = undefined;
      }
    }
    const id = (v as { id?: unknown } | undefined)?.id;
    if (typeof id === "string") this.ids.add(id);
    this.lines++;
    const checkFrom = this.o.checkFrom;
    if (checkFrom === undefined || offset < checkFrom) return;
    const problem = lineProblem(lineBuf, v);
    if (problem) this.scan.badLine ??= { offset, line: this.lines, reason: problem };
    else {
      const org = (v as { organizationId?: unknown }).organizationId;
      if (typeof org === "string") this.scan.organizationIds.add(org);
    }
  }

  /** Reads bytes [known, size) that another process (or an earlier run) appended; learns their ids. */
  async catchUp(allowRepair: boolean): Promise<void> {
    this.lastStat = await this.fh.stat({ bigint: true });
    const size = Number(this.lastStat.size);
    let carry = Buffer.alloc(0);
    let pos = this.known;
    while (pos < size) {
      const buf = Buffer.alloc(Math.min(READ_CHUNK, size - pos));
      const { bytesRead } = await this.fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = carry.length
        ? Buffer.concat([carry, buf.subarray(0, bytesRead)])
        : buf.subarray(0, bytesRead);
      const complete = data.lastIndexOf(0x0a) + 1;
      for (let s = 0; s < complete; ) {
        const e = data.indexOf(0x0a, s);
        this.learnLine(data.subarray(s, e), this.known + s);
        s = e + 1;
      }
      this.digestUpdate(data.subarray(0, complete), this.known);
      this.known += complete;
      carry = Buffer.from(data.subarray(complete));
    }
    if (carry.length && allowRepair) {
      // A line without its newline was never fsynced as a whole, so never acknowledged or covered by
      // a saved cursor: cut it, or the next append would glue an envelope to it.
      this.repaired += carry.length;
      await this.fh.truncate(this.known);
      this.lastStat = await this.fh.stat({ bigint: true });
    } else if (carry.length) this.scan.partial = carry;
  }

  async repairPartial(): Promise<number> {
    const before = this.repaired;
    await this.withLock(() => this.catchUp(true));
    return this.repaired - before;
  }

  async append(items: readonly StoredEnvelope[]): Promise<AppendResult> {
    if (this.closed) throw new Error("event store is closed");
    const result: AppendResult = { appended: [], duplicates: [] };
    if (items.length === 0) return result;
    await this.withLock(async () => {
      await this.catchUp(true);
      const fresh: string[] = [];
      for (const it of items) {
        if (this.ids.has(it.id)) {
          result.duplicates.push(it.id);
          continue;
        }
        this.ids.add(it.id);
        result.appended.push(it.id);
        fresh.push(`${it.line}\n`);
      }
      if (fresh.length === 0) return;
      await this.write(Buffer.from(fresh.join(""), "utf8"), result.appended);
    });
    return result;
  }

  /** Appends `buf` durably (fsync); a failed write forgets `ids` and leaves no half-written tail. */
  private async write(buf: Buffer, ids: readonly string[]): Promise<void> {
    try {
      // "a+" appends at the end whatever the position.
      let off = 0;
      while (off < buf.length) off += (await this.fh.write(buf, off, buf.length - off)).bytesWritten;
      await this.fh.sync();
    } catch (err) {
      for (const id of ids) this.ids.delete(id);
      // Leave no half-written tail behind on a failed write (disk full).
      await this.fh.truncate(this.known).catch(() => {});
      throw withPath(err, this.path);
    }
    this.digestUpdate(buf, this.known);
    this.known += buf.length;
    this.lastStat = await this.fh.stat({ bigint: true });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fh.close();
  }
}

export async function openEventStore(path: string, o: StoreOpenOptions = {}): Promise<OpenedEventStore> {
  // The store holds the organization's event data: a new one is created 0600 whatever the umask.
  const { fh } = await openPrivateAppend(path, { read: true });
  const store = new StoreFile(path, fh, await fh.stat({ bigint: true }), o);
  await store.withLock(() => store.catchUp(!o.deferRepair));
  return store;
}
