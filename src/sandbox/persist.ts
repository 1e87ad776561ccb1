// The sandbox's state on disk: loaded lazily, written incrementally, never rewritten on a read.
//
// Files in the data dir (all 0600, the segment directory 0700):
//   sandbox-state.json               the manifest: {"format": 2, "root", "files", "journal"}. `root` is
//                                    the small part of the state; `files` names the files that hold
//                                    each segment (its shards) and each blob (segments.ts says what
//                                    those are).
//   sandbox-journal-<x>.ndjson       the commits since the manifest was written, one line each:
//                                    `<json>\t<hash>\n` (a line that is cut short or does not match its
//                                    hash, as a crash mid-append leaves it, ends the journal).
//   sandbox-segments/<id>-<x>.json   shard and blob files; a file is never changed once written.
//
// A segment's entries are spread over shard files by a hash of their key (about a thousand entries a
// shard), so reading or changing one entry reads one small file. A shard file is a JSON document whose
// `entries` array holds key, value, seq for each entry, one entry a line; seq is its place in the
// Map's order.
//
// A commit (after the changes of a request, debounced by server.ts) appends one journal line: the
// entries of segments that changed, a segment written whole when it is new or largely changed, a
// blob that changed, and the root when it changed. Nothing is written when nothing changed. When the
// journal has grown past a quarter of the data (or the data no longer reachable has), a compaction
// folds it into new shard files and a new manifest (written aside, then renamed over the old one)
// and deletes what is no longer referenced.
//
// A data dir written by the first format (one sandbox-state.json holding everything) is read once and
// rewritten in this layout.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors.js";
import {
  type BlobRef,
  blobOf,
  decode,
  Encoder,
  hash53,
  refsIn,
  SEG,
  type SegmentSource,
  shardOf,
  TrackedMap,
} from "./segments.js";
import type { Store } from "./store.js";
import {
  buildIndex,
  type Flag,
  indexUnchanged,
  listEntry,
  type IndexDoc,
  type KeyList,
  type Overrides,
  overridesOf,
  parseIndex,
  storedKeys,
  updatedIndex,
} from "./sorted-index.js";

const SNAPSHOT = "sandbox-state.json";
const SEGMENT_DIR = "sandbox-segments";
const FORMAT = 2;
/** Entries a shard holds, about. */
const SHARD_ENTRIES = 256;
const MAX_SHARDS = 4096;
/**
 * While running, the journal is compacted once it is larger than this and than a quarter of the data
 * files; when the sandbox closes, once it is larger than CLOSE_COMPACT_BYTES (every start reads the
 * journal whole, so what the next process reads stays small).
 */
const COMPACT_MIN_BYTES = 4 * 1024 * 1024;
const CLOSE_COMPACT_BYTES = 1024 * 1024;
/** Up to this many changed keys, a commit looks up their lines in the file instead of hashing it all. */
const FEW_KEYS = 64;
/** A segment is written whole (not as journal entries) once this share of it changed in one commit. */
const REWRITE_SHARE = 0.25;

export function snapshotPath(dataDir: string): string {
  return join(dataDir, SNAPSHOT);
}

/** Where a segment or blob is: a segment's shard files and next place in order, or a blob's file. */
interface FileInfo {
  shards?: string[];
  next?: number;
  file?: string;
  /**
   * A segment's sorted index file (sorted-index.ts); null when it cannot have one (a key that is not
   * a string, a value that is not plain); absent in a data dir written before indexes.
   */
  index?: string | null;
  /** Segments and blobs these files refer to. */
  refs: string[];
  bytes: number;
}

/** A journal entry for one segment: keys deleted, then entries set (seq null: keep the stored place). */
interface EntryOp {
  id: string;
  del?: unknown[];
  set?: [unknown, unknown, number | null][];
  plain: boolean;
}
type FileOp = { id: string } & FileInfo;
type Op = { root: unknown } | FileOp | EntryOp;

interface Manifest {
  format: 2;
  journal: string;
  root: unknown;
  files: Record<string, FileInfo>;
}

const rand = () => Math.random().toString(36).slice(2, 10);

function unreadable(p: string, why: string): UsageError {
  return new UsageError(
    `The sandbox state in ${p} cannot be read (${why}).`,
    "Move the data directory aside (or delete it) to start the sandbox from its seed.",
  );
}

function notState(p: string): UsageError {
  return new UsageError(
    `${p} is not a sandbox state file.`,
    "Move the file aside (or delete it) to start the sandbox from its seed.",
  );
}

/** Writes a file that did not exist (0600), flushed. */
function writeNew(path: string, text: string): void {
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** An entry of a shard: key, encoded value, place in the Map's order. */
type ShardEntry = [key: unknown, tree: unknown, seq: number];

interface ShardHead {
  plain: boolean;
  /**
   * Every value is an object with these keys, in this order: entries hold the values as a row of the
   * columns that are neither `keyColumn` (always equal to the entry's key) nor in `constants` (the
   * same plain value in every entry).
   */
  columns?: string[];
  keyColumn?: string;
  constants?: Record<string, string | number | boolean | null>;
}

/** The keys of an object whose every value can be a row cell (none undefined), else undefined. */
function rowKeys(tree: unknown): string[] | undefined {
  if (tree === null || typeof tree !== "object" || Array.isArray(tree)) return undefined;
  const keys = Object.keys(tree);
  for (const k of keys) if ((tree as Record<string, unknown>)[k] === undefined) return undefined;
  return keys;
}

const isScalar = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/** How a shard's values are laid out: as rows when they all have the same keys (see ShardHead). */
function layoutOf(entries: ShardEntry[]): Omit<ShardHead, "plain"> {
  if (entries.length < 2) return {};
  const columns = rowKeys(entries[0]![1]);
  if (!columns) return {};
  const sig = columns.join("\u0000");
  const first = entries[0]![1] as Record<string, unknown>;
  const constant = new Set(columns.filter((c) => isScalar(first[c])));
  const keyLike = new Set(columns.filter((c) => first[c] === entries[0]![0]));
  for (const [k, tree] of entries) {
    const keys = rowKeys(tree);
    if (!keys || keys.join("\u0000") !== sig) return {};
    const o = tree as Record<string, unknown>;
    for (const c of constant) if (o[c] !== first[c] || !isScalar(o[c])) constant.delete(c);
    for (const c of keyLike) if (o[c] !== k) keyLike.delete(c);
  }
  const out: Omit<ShardHead, "plain"> = { columns };
  const keyColumn = [...keyLike][0];
  if (keyColumn !== undefined) {
    out.keyColumn = keyColumn;
    constant.delete(keyColumn);
  }
  if (constant.size > 0) {
    out.constants = {};
    for (const c of constant) out.constants[c] = first[c] as string | number | boolean | null;
  }
  return out;
}

/** The columns a row holds, in order. */
function rowColumns(h: Omit<ShardHead, "plain">): string[] {
  return (h.columns ?? []).filter((c) => c !== h.keyColumn && !(h.constants && c in h.constants));
}

/**
 * A shard file: `{"format":2,"kind":"shard","plain":...,<layout>,"entries":[` then one line an entry,
 * `key,value,seq` (value a row when the layout has columns), then `]}`. JSON.stringify escapes any
 * newline inside a key or value, so lines are entries.
 */
function shardBody(entries: ShardEntry[], plain: boolean): string {
  const layout = layoutOf(entries);
  const head = { format: FORMAT, kind: "shard", plain, ...layout };
  const cells = layout.columns ? rowColumns(layout) : undefined;
  const lines = entries.map(([k, tree, seq]) => {
    const value = cells ? cells.map((c) => (tree as Record<string, unknown>)[c]) : tree;
    return `${JSON.stringify(k)},${JSON.stringify(value)},${seq}`;
  });
  return `${JSON.stringify({ ...head, entries: [] }).slice(0, -3)}[\n${lines.join(",\n")}\n]}`;
}

function shardHead(text: string): ShardHead {
  return JSON.parse(`${text.slice(0, text.indexOf("\n"))}]}`);
}

type RowMaker = (key: unknown, row: unknown[]) => Record<string, unknown>;
const rowMakers = new Map<string, RowMaker>();

/**
 * The function that turns a row back into its object, keys in their order. Generated once per
 * layout: an object literal is much cheaper to make than an object filled key by key. Column
 * names and constants are written as JSON literals, which are JavaScript literals too.
 */
function rowMaker(h: ShardHead): RowMaker {
  const sig = JSON.stringify([h.columns, h.keyColumn, h.constants]);
  let make = rowMakers.get(sig);
  if (!make) {
    const cells = rowColumns(h);
    const parts = (h.columns ?? []).map((c) => {
      const value =
        c === h.keyColumn
          ? "k"
          : h.constants && c in h.constants
            ? JSON.stringify(h.constants[c])
            : `r[${cells.indexOf(c)}]`;
      return `${JSON.stringify(c)}: ${value}`;
    });
    make = new Function("k", "r", `return { ${parts.join(", ")} };`) as RowMaker;
    rowMakers.set(sig, make);
  }
  return make;
}

/** Every entry of a shard file, values as encoded (objects again, not rows). */
function shardEntries(text: string): ShardEntry[] {
  const doc = JSON.parse(text) as ShardHead & { entries: unknown[] };
  const out: ShardEntry[] = [];
  const make = doc.columns ? rowMaker(doc) : undefined;
  const flat = doc.entries;
  for (let i = 0; i < flat.length; i += 3) {
    const v = flat[i + 1];
    out.push([flat[i], make ? make(flat[i], v as unknown[]) : v, flat[i + 2] as number]);
  }
  return out;
}

/** The entry of `key` in a shard file's text, found by its line (`key,value,seq`), as written. */
function entryLine(text: string, key: unknown): ShardEntry | undefined {
  const at = text.indexOf(`\n${JSON.stringify(key)},`);
  if (at < 0) return undefined;
  const end = text.indexOf("\n", at + 1);
  const line = text.slice(at + 1, end < 0 ? undefined : end);
  return JSON.parse(`[${line.endsWith(",") ? line.slice(0, -1) : line}]`) as ShardEntry;
}

const NO_CHANGES: Overrides = new Map();

/** The hash a baseline keeps of an entry: of `[key,value]` as the encoder writes it. */
const entryHash = (key: unknown, tree: unknown) => hash53(JSON.stringify([key, tree]));

export class SandboxPersistence implements SegmentSource {
  readonly dir: string;
  private readonly segDir: string;
  private readonly manifestPath: string;
  private journal = "";
  private journalBytes = 0;
  /** Bytes at the end of the journal that a crash left unfinished: cut before the next append. */
  private cutJournalAt: number | undefined;
  private readonly files = new Map<string, FileInfo>();
  /** Journal entries of each segment since its shard files. */
  private readonly segOps = new Map<string, EntryOp[]>();
  private rootText = "";
  private readonly tracked = new Set<WeakRef<TrackedMap | BlobRef>>();
  private readonly trackedItems = new WeakSet<object>();
  /** True until create() wrote the first layout (a new data dir). */
  isNew = false;

  private constructor(dir: string) {
    this.dir = dir;
    this.segDir = join(dir, SEGMENT_DIR);
    this.manifestPath = join(dir, SNAPSHOT);
  }

  /** Opens a data dir: its store (segments unloaded), or none when the dir holds no state yet. */
  static open(dir: string): { persistence: SandboxPersistence; store: Store | undefined } {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const p = new SandboxPersistence(dir);
    if (!existsSync(p.manifestPath)) {
      p.isNew = true;
      return { persistence: p, store: undefined };
    }
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(readFileSync(p.manifestPath, "utf8"));
    } catch (err) {
      throw unreadable(p.manifestPath, (err as Error).message);
    }
    if (doc && typeof doc === "object" && doc.format === FORMAT)
      return { persistence: p, store: p.load(doc) };
    // The first format: the whole store in this one file. Read it once, write it in this layout.
    const store = (doc && typeof doc === "object" ? decode(doc, p) : undefined) as Store | undefined;
    if (!(store?.orgs instanceof Map) || !(store.keys instanceof Map) || !store.defaultKeys)
      throw notState(p.manifestPath);
    p.create(store);
    return { persistence: p, store };
  }

  private load(doc: Record<string, unknown>): Store {
    const m = doc as unknown as Manifest;
    if (!m.files || typeof m.files !== "object" || typeof m.journal !== "string" || !m.root)
      throw unreadable(this.manifestPath, "the manifest is incomplete");
    for (const [id, f] of Object.entries(m.files)) this.files.set(id, f);
    this.journal = m.journal;
    let root: unknown = m.root;
    const jpath = join(this.dir, this.journal);
    if (existsSync(jpath)) {
      const text = readFileSync(jpath, "utf8");
      let good = 0;
      for (;;) {
        const nl = text.indexOf("\n", good);
        if (nl < 0) break;
        const line = text.slice(good, nl);
        const tab = line.lastIndexOf("\t");
        const payload = tab < 0 ? "" : line.slice(0, tab);
        if (tab < 0 || hash53(payload).toString(36) !== line.slice(tab + 1)) break;
        let commit: { ops: Op[] };
        try {
          commit = JSON.parse(payload);
        } catch {
          break;
        }
        for (const op of commit.ops) {
          if ("root" in op) root = op.root;
          else this.apply(op);
        }
        good = nl + 1;
      }
      this.journalBytes = good;
      if (good < text.length) this.cutJournalAt = good;
    }
    this.rootText = JSON.stringify(root);
    const store = decode(root, this) as Store;
    if (!(store?.orgs instanceof Map) || !(store.keys instanceof Map) || !store.defaultKeys)
      throw notState(this.manifestPath);
    return store;
  }

  /** Takes a segment or blob op into the in-memory picture of what is on disk. */
  private apply(op: FileOp | EntryOp): void {
    if ("del" in op || "set" in op || "plain" in op) {
      const e = op as EntryOp;
      const list = this.segOps.get(e.id) ?? [];
      list.push(e);
      this.segOps.set(e.id, list);
      const info = this.files.get(e.id);
      if (info)
        for (const x of e.set ?? []) if (x[2] !== null && x[2] >= (info.next ?? 0)) info.next = x[2] + 1;
    } else {
      const { id, ...info } = op as FileOp;
      this.files.set(id, info);
      this.segOps.delete(id);
    }
  }

  // ---- SegmentSource ---------------------------------------------------------------------------

  newId(kind: "s" | "b"): string {
    for (;;) {
      const id = `${kind}${Date.now().toString(36)}${rand()}`;
      if (!this.files.has(id)) return id;
    }
  }

  track(item: TrackedMap | BlobRef): void {
    if (this.trackedItems.has(item)) return;
    this.trackedItems.add(item);
    this.tracked.add(new WeakRef(item));
  }

  private info(id: string): FileInfo {
    const f = this.files.get(id);
    if (!f) throw new Error(`The sandbox data in ${this.dir} is damaged: nothing is known of part ${id}.`);
    return f;
  }

  private readFile(file: string): string;
  private readFile(file: string, raw: "bytes"): Buffer;
  private readFile(file: string, raw?: "bytes"): string | Buffer {
    try {
      const path = join(this.segDir, file);
      return raw ? readFileSync(path) : readFileSync(path, "utf8");
    } catch (err) {
      throw new Error(
        `The sandbox data in ${this.dir} is damaged: ${join(SEGMENT_DIR, file)} cannot be read (${(err as NodeJS.ErrnoException).code}).`,
      );
    }
  }

  private shardText(id: string, shard: number): string {
    return this.readFile(this.info(id).shards![shard]!);
  }

  shardCount(id: string): number {
    return this.files.get(id)?.shards?.length ?? 1;
  }

  seqBound(id: string): number {
    return this.files.get(id)?.next ?? 0;
  }

  loadShard(id: string, shard: number, each: (k: unknown, v: unknown, seq: number) => void): void {
    const info = this.info(id);
    const count = info.shards?.length ?? 0;
    const doc = JSON.parse(this.shardText(id, shard)) as ShardHead & { entries: unknown[] };
    const flat = doc.entries;
    const make = doc.columns ? rowMaker(doc) : undefined;
    const valueAt = (i: number) => {
      const v = make ? make(flat[i], flat[i + 1] as unknown[]) : flat[i + 1];
      return doc.plain ? v : decode(v, this);
    };
    const ops = this.segOps.get(id);
    if (!ops) {
      for (let i = 0; i < flat.length; i += 3) each(flat[i], valueAt(i), flat[i + 2] as number);
      return;
    }
    const byKey = new Map<unknown, [unknown, number]>();
    for (let i = 0; i < flat.length; i += 3) byKey.set(flat[i], [valueAt(i), flat[i + 2] as number]);
    let next = info.next ?? 0;
    for (const op of ops) {
      for (const k of op.del ?? []) if (shardOf(k, count) === shard) byKey.delete(k);
      for (const [k, v, seq] of op.set ?? []) {
        if (shardOf(k, count) !== shard) continue;
        // A copy: what the journal holds must not change with the live record.
        const value = op.plain ? structuredClone(v) : decode(structuredClone(v), this);
        const old = byKey.get(k);
        if (seq === null && old) old[0] = value;
        else byKey.set(k, [value, seq ?? next++]);
      }
    }
    for (const [k, [v, seq]] of byKey) each(k, v, seq);
  }

  /** Index files read, by segment (a new file name means a new index). */
  private readonly indexes = new Map<string, { file: string; doc: IndexDoc | undefined; bytes: number }>();
  /** The journal's changes of each segment by key, and the ops they were made from. */
  private readonly overrideCache = new Map<string, { ops: EntryOp[]; seen: number; over?: Overrides }>();

  private indexDoc(id: string): IndexDoc | undefined {
    const file = this.files.get(id)?.index;
    if (!file) return undefined;
    const known = this.indexes.get(id);
    if (known?.file === file) return known.doc;
    let doc: IndexDoc | undefined;
    let bytes = 0;
    try {
      const text = readFileSync(join(this.segDir, file), "utf8");
      bytes = Buffer.byteLength(text);
      doc = parseIndex(text);
    } catch {
      doc = undefined; // gone (an older build compacted the dir): the segment is read whole
    }
    this.indexes.set(id, { file, doc, bytes });
    return doc;
  }

  private overrides(id: string): Overrides | undefined {
    const ops = this.segOps.get(id);
    if (!ops) return NO_CHANGES;
    const known = this.overrideCache.get(id);
    if (known && known.ops === ops && known.seen === ops.length) return known.over;
    const over = overridesOf(ops);
    this.overrideCache.set(id, { ops, seen: ops.length, over });
    return over;
  }

  storedKeys(id: string, flag?: Flag): KeyList | undefined {
    const doc = this.indexDoc(id);
    const over = doc && this.overrides(id);
    return doc && over ? storedKeys(doc, over, flag) : undefined;
  }

  readStored(id: string, key: unknown): { value: unknown } | undefined {
    const over = typeof key === "string" ? this.overrides(id) : undefined;
    const shards = this.files.get(id)?.shards;
    if (!over || !shards) return undefined;
    const changed = over.get(key as string);
    if (changed !== undefined) return { value: changed === null ? undefined : structuredClone(changed) };
    // The file's bytes, searched for the key's line: only the head and that line are decoded.
    const bytes = this.readFile(shards[shardOf(key, shards.length)]!, "bytes");
    const head = shardHead(bytes.toString("utf8", 0, bytes.indexOf(10) + 1));
    if (!head.plain) return undefined;
    const at = bytes.indexOf(`\n${JSON.stringify(key)},`);
    if (at < 0) return { value: undefined };
    const end = bytes.indexOf(10, at + 1);
    const e = entryLine(bytes.toString("utf8", at, end < 0 ? bytes.length : end), key)!;
    return { value: head.columns ? rowMaker(head)(key, e[1] as unknown[]) : e[1] };
  }

  loadBlob(id: string): unknown {
    const text = this.readFile(this.info(id).file!);
    const nl = text.indexOf("\n");
    const head = JSON.parse(text.slice(0, nl)) as { plain: boolean };
    const value = JSON.parse(text.slice(nl + 1));
    return head.plain ? value : decode(value, this);
  }

  // ---- writing ---------------------------------------------------------------------------------

  /** Writes the first layout of a data dir (new, or read from the first format). */
  create(store: Store): void {
    mkdirSync(this.segDir, { recursive: true, mode: 0o700 });
    const ops: Op[] = [];
    const enc = new Encoder(this);
    const root = enc.encode(store);
    this.processTracked(ops);
    this.rootText = JSON.stringify(root);
    for (const op of ops) if (!("root" in op)) this.apply(op);
    this.segOps.clear();
    this.writeManifest(root);
    this.isNew = false;
    this.removeUnreferenced();
  }

  /**
   * Writes what changed since the last commit (one journal line); nothing when nothing changed.
   * Returns whether anything was written.
   */
  commit(store: Store): boolean {
    if (this.isNew) {
      this.create(store);
      return true;
    }
    const ops: Op[] = [];
    const enc = new Encoder(this);
    const root = enc.encode(store);
    this.processTracked(ops);
    const rootText = JSON.stringify(root);
    const rootChanged = rootText !== this.rootText;
    if (rootChanged) ops.push({ root });
    if (ops.length === 0) return false;
    const payload = JSON.stringify({ ops });
    const line = `${payload}\t${hash53(payload).toString(36)}\n`;
    const jpath = join(this.dir, this.journal);
    if (this.cutJournalAt !== undefined) {
      truncateSync(jpath, this.cutJournalAt);
      this.cutJournalAt = undefined;
    }
    const fd = openSync(jpath, "a", 0o600);
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
    this.journalBytes += Buffer.byteLength(line);
    this.rootText = rootText;
    // What was written, read back: the journal's picture must not share objects with the live state.
    for (const op of (JSON.parse(payload) as { ops: Op[] }).ops) if (!("root" in op)) this.apply(op);
    if (this.shouldCompact(rootChanged)) this.compact();
    return true;
  }

  /** Looks at every loaded segment and blob (those found meanwhile too) and adds their ops. */
  private processTracked(ops: Op[]): void {
    const done = new WeakSet<object>();
    for (;;) {
      let any = false;
      for (const ref of [...this.tracked]) {
        const item = ref.deref();
        if (!item) {
          this.tracked.delete(ref);
          continue;
        }
        if (done.has(item)) continue;
        done.add(item);
        any = true;
        if (item instanceof TrackedMap) this.processSegment(item, ops);
        else this.processBlob(item, ops);
      }
      if (!any) return;
    }
  }

  private processSegment(m: TrackedMap, ops: Op[]): void {
    const s = m[SEG];
    if (s.fresh) {
      ops.push(this.writeSegment(m));
      return;
    }
    if (!s.all && s.touched.size === 0) return;
    if (!this.files.has(s.id)) {
      // Dropped by a compaction (nothing referred to it any more): nothing to keep.
      s.touched.clear();
      s.all = false;
      s.deleted.clear();
      return;
    }
    if (s.all || s.touched.size > FEW_KEYS) {
      if (!s.baselineComplete) {
        s.baseline = this.baselineOf(s.id);
        s.baselineComplete = true;
      }
    } else {
      // A few keys: their lines are looked up in their shards, not every shard hashed.
      s.baseline ??= new Map();
      const missing = [...s.touched].filter((k) => !s.baseline!.has(k));
      if (!s.baselineComplete && missing.length)
        for (const [k, h] of this.baselineOf(s.id, missing)) s.baseline.set(k, h);
    }
    const baseline = s.baseline!;
    let keys: Iterable<unknown>;
    if (s.all) {
      const all = new Set<unknown>();
      for (const [k] of m.rawEntries()) all.add(k);
      for (const [k, h] of baseline) if (h !== null) all.add(k);
      keys = all;
    } else keys = s.touched;
    const del: unknown[] = [];
    const changed: [unknown, unknown, number][] = [];
    const added = new Map<unknown, [unknown, number]>();
    const enc = new Encoder(this);
    for (const k of keys) {
      const known = baseline.get(k) ?? undefined;
      if (!m.rawHas(k)) {
        if (known !== undefined) del.push(k);
        continue;
      }
      const tree = enc.encode(m.rawGet(k));
      const h = entryHash(k, tree);
      if (known !== undefined && !s.deleted.has(k)) {
        if (known !== h) changed.push([k, tree, h]);
        continue;
      }
      // New, or deleted and set again (it moves to the end).
      if (known !== undefined) del.push(k);
      added.set(k, [tree, h]);
    }
    s.touched.clear();
    s.all = false;
    s.deleted.clear();
    if (del.length === 0 && changed.length === 0 && added.size === 0) return;
    if (del.length + changed.length + added.size > Math.max(500, m.rawSize() * REWRITE_SHARE)) {
      m.loadAll();
      ops.push(this.writeSegment(m));
      return;
    }
    // New keys take the next places, in the Map's order.
    const info = this.info(s.id);
    let next = info.next ?? 0;
    const order = new Set<unknown>();
    if (added.size > 0) {
      if (s.full) {
        for (const [k] of m.rawEntries()) if (added.has(k)) order.add(k);
      } else for (const k of s.added) if (added.has(k)) order.add(k);
      for (const k of added.keys()) order.add(k);
    }
    const set: [unknown, unknown, number | null][] = [];
    for (const [k, tree, h] of changed) {
      set.push([k, tree, null]);
      baseline.set(k, h);
    }
    for (const k of order) {
      const [tree, h] = added.get(k)!;
      set.push([k, tree, next++]);
      baseline.set(k, h);
    }
    for (const k of del) if (!added.has(k)) baseline.set(k, null);
    const op: EntryOp = { id: s.id, plain: enc.plain };
    if (del.length) op.del = del;
    if (set.length) op.set = set;
    ops.push(op);
  }

  private processBlob(b: BlobRef, ops: Op[]): void {
    if (!b.loaded || blobOf(b.holder, b.key) !== b) return;
    if (!b.fresh && !this.files.has(b.id)) return; // dropped by a compaction
    const enc = new Encoder(this);
    const tree = enc.encode((b.holder as Record<string, unknown>)[b.key]);
    const text = JSON.stringify(tree ?? null);
    const h = hash53(text);
    if (!b.fresh) {
      if (b.baseline === undefined) {
        const old = this.readFile(this.info(b.id).file!);
        b.baseline = hash53(old.slice(old.indexOf("\n") + 1));
      }
      if (b.baseline === h) return;
    }
    b.fresh = false;
    b.baseline = h;
    const file = `${b.id}-${rand()}.json`;
    const body = `${JSON.stringify({ format: FORMAT, kind: "blob", plain: enc.plain })}\n${text}`;
    mkdirSync(this.segDir, { recursive: true, mode: 0o700 });
    writeNew(join(this.segDir, file), body);
    ops.push({ id: b.id, file, refs: enc.plain ? [] : refsIn(text), bytes: Buffer.byteLength(body) });
  }

  /** Writes a segment whole (every entry in memory, in order): its shard files and its op. */
  private writeSegment(m: TrackedMap): FileOp {
    const s = m[SEG];
    const n = m.rawSize();
    const count = Math.min(MAX_SHARDS, Math.max(1, Math.ceil(n / SHARD_ENTRIES)));
    const entries: ShardEntry[][] = Array.from({ length: count }, () => []);
    const plain = Array.from({ length: count }, () => true);
    const baseline = new Map<unknown, number | null>();
    let seq = 0;
    for (const [k, v] of m.rawEntries()) {
      const enc = new Encoder(this);
      const tree = enc.encode(v);
      const shard = shardOf(k, count);
      entries[shard]!.push([k, tree, seq++]);
      if (!enc.plain) plain[shard] = false;
      baseline.set(k, entryHash(k, tree));
    }
    const shards: string[] = [];
    const refs: string[] = [];
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      const w = this.writeShard(s.id, entries[i]!, plain[i]!);
      shards.push(w.file);
      refs.push(...w.refs);
      bytes += w.bytes;
    }
    const index = plain.every(Boolean) ? this.writeIndex(s.id, entries.flat()) : null;
    s.fresh = false;
    s.shards = count;
    s.loadedShards = new Set(Array.from({ length: count }, (_, i) => i));
    s.baseline = baseline;
    s.baselineComplete = true;
    s.touched.clear();
    s.all = false;
    s.deleted.clear();
    return {
      id: s.id,
      shards,
      next: seq,
      index: index?.file ?? null,
      refs,
      bytes: bytes + (index?.bytes ?? 0),
    };
  }

  private writeShard(
    id: string,
    entries: ShardEntry[],
    plain: boolean,
  ): { file: string; refs: string[]; bytes: number } {
    const body = shardBody(entries, plain);
    const file = `${id}-${rand()}.json`;
    mkdirSync(this.segDir, { recursive: true, mode: 0o700 });
    writeNew(join(this.segDir, file), body);
    return { file, refs: plain ? [] : refsIn(body), bytes: Buffer.byteLength(body) };
  }

  /** Writes the sorted index of a segment's entries; null when it cannot have one. */
  private writeIndex(
    id: string,
    entries: Iterable<readonly unknown[]>,
  ): { file: string; bytes: number } | null {
    const body = buildIndex(entries);
    return body === undefined
      ? null
      : { file: this.writeIndexText(id, body), bytes: Buffer.byteLength(body) };
  }

  private writeIndexText(id: string, body: string): string {
    const file = `${id}-${rand()}.json`;
    mkdirSync(this.segDir, { recursive: true, mode: 0o700 });
    writeNew(join(this.segDir, file), body);
    return file;
  }

  /**
   * At compaction, the index of a segment whose shards became `shards`: its index file when the
   * journal changed no key and no flag, else a new one. Its `index` and the `bytes` it adds.
   */
  private reindex(id: string, info: FileInfo, shards: string[]): { index: string | null; bytes: number } {
    if (info.index === null) return { index: null, bytes: 0 }; // not a list's (a whole rewrite looks again)
    const doc = this.indexDoc(id);
    const over = doc && this.overrides(id);
    if (doc && over) {
      if (indexUnchanged(doc, over)) return { index: info.index!, bytes: this.indexes.get(id)?.bytes ?? 0 };
      const text = updatedIndex(doc, over);
      if (text !== undefined) return { index: this.writeIndexText(id, text), bytes: Buffer.byteLength(text) };
    }
    const index = this.indexShards(id, shards);
    return { index: index?.file ?? null, bytes: index?.bytes ?? 0 };
  }

  /** The sorted index of a segment as its shard files hold it (null when it cannot have one). */
  private indexShards(id: string, shards: string[]): { file: string; bytes: number } | null {
    const all: ShardEntry[] = [];
    for (const f of shards) {
      const text = this.readFile(f);
      if (!shardHead(text).plain) return null;
      for (const e of shardEntries(text)) all.push(e);
      if (all.length > 0 && !listEntry(all[0]![0], all[0]![1])) return null; // known before reading on
    }
    return this.writeIndex(id, all);
  }

  /**
   * Hash of the entries of a segment as they are on disk (shard files, then journal entries): all
   * of them, or those of `only` (null for a key that is not there; only their shards are read).
   */
  private baselineOf(id: string, only?: unknown[]): Map<unknown, number | null> {
    const out = new Map<unknown, number | null>();
    const count = this.shardCount(id);
    if (only) {
      const byShard = new Map<number, unknown[]>();
      for (const k of only) {
        const sh = shardOf(k, count);
        byShard.set(sh, [...(byShard.get(sh) ?? []), k]);
      }
      for (const [sh, keys] of byShard) {
        const text = this.shardText(id, sh);
        const head = shardHead(text);
        const make = head.columns ? rowMaker(head) : undefined;
        for (const k of keys) {
          const e = entryLine(text, k);
          out.set(k, e ? entryHash(k, make ? make(k, e[1] as unknown[]) : e[1]) : null);
        }
      }
    } else {
      for (let sh = 0; sh < count; sh++)
        for (const [k, tree] of shardEntries(this.shardText(id, sh))) out.set(k, entryHash(k, tree));
    }
    const wanted = only ? new Set(only) : undefined;
    for (const op of this.segOps.get(id) ?? []) {
      for (const k of op.del ?? []) if (!wanted || wanted.has(k)) out.set(k, null);
      for (const e of op.set ?? []) if (!wanted || wanted.has(e[0])) out.set(e[0], entryHash(e[0], e[1]));
    }
    return out;
  }

  // ---- compaction ------------------------------------------------------------------------------

  private reachable(): Set<string> {
    const seen = new Set<string>();
    const stack = refsIn(this.rootText);
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const f = this.files.get(id);
      if (f) stack.push(...f.refs);
      for (const op of this.segOps.get(id) ?? [])
        if (!op.plain) stack.push(...refsIn(JSON.stringify(op.set ?? [])));
    }
    return seen;
  }

  private shouldCompact(rootChanged: boolean): boolean {
    let total = 0;
    for (const f of this.files.values()) total += f.bytes;
    if (this.journalBytes > Math.max(COMPACT_MIN_BYTES, total / 4)) return true;
    if (!rootChanged) return false;
    const live = this.reachable();
    let dead = 0;
    for (const [id, f] of this.files) if (!live.has(id)) dead += f.bytes;
    return dead > Math.max(COMPACT_MIN_BYTES, (total - dead) / 4);
  }

  /** At close: compacts a journal that the next start would spend time reading. */
  close(): void {
    if (!this.isNew && this.journalBytes > CLOSE_COMPACT_BYTES) this.compact();
  }

  /** Folds the journal into new shard files and a new manifest, then deletes what nothing refers to. */
  compact(): void {
    const live = this.reachable();
    for (const id of [...this.files.keys()]) if (!live.has(id)) this.files.delete(id);
    for (const [id, ops] of this.segOps) {
      const info = this.files.get(id);
      if (!info?.shards || ops.length === 0) continue;
      const count = info.shards.length;
      // Only the shards the journal touched are written again.
      const touched = new Set<number>();
      for (const op of ops) {
        for (const k of op.del ?? []) touched.add(shardOf(k, count));
        for (const e of op.set ?? []) touched.add(shardOf(e[0], count));
      }
      let next = info.next ?? 0;
      const shards = [...info.shards];
      for (const sh of touched) {
        const text = this.readFile(shards[sh]!);
        let plain = shardHead(text).plain;
        const entries = new Map<unknown, ShardEntry>();
        for (const e of shardEntries(text)) entries.set(e[0], e);
        for (const op of ops) {
          for (const k of op.del ?? []) if (shardOf(k, count) === sh) entries.delete(k);
          for (const [k, v, seq] of op.set ?? []) {
            if (shardOf(k, count) !== sh) continue;
            const old = entries.get(k);
            const at = seq === null && old !== undefined ? old[2] : (seq ?? next++);
            entries.delete(k);
            entries.set(k, [k, v, at]);
            if (!op.plain) plain = false;
          }
        }
        shards[sh] = this.writeShard(id, [...entries.values()], plain).file;
      }
      for (const op of ops) for (const e of op.set ?? []) if (e[2] !== null) next = Math.max(next, e[2] + 1);
      let bytes = 0;
      const refs: string[] = [];
      for (const f of shards) {
        const text = this.readFile(f);
        bytes += Buffer.byteLength(text);
        if (!shardHead(text).plain) refs.push(...refsIn(text));
      }
      const ix = this.reindex(id, info, shards);
      this.files.set(id, { shards, next, index: ix.index, refs, bytes: bytes + ix.bytes });
    }
    // Segments of a data dir written before indexes get theirs.
    for (const [id, info] of this.files) {
      if (!info.shards || info.index !== undefined) continue;
      const index = this.indexShards(id, info.shards);
      this.files.set(id, { ...info, index: index?.file ?? null, bytes: info.bytes + (index?.bytes ?? 0) });
    }
    this.segOps.clear();
    const old = this.journal;
    this.writeManifest(JSON.parse(this.rootText));
    if (old !== this.journal) rmSync(join(this.dir, old), { force: true });
    this.removeUnreferenced();
  }

  /** A new (empty) journal and the manifest naming it, written aside and renamed into place. */
  private writeManifest(root: unknown): void {
    this.journal = `sandbox-journal-${rand()}.ndjson`;
    writeNew(join(this.dir, this.journal), "");
    this.journalBytes = 0;
    this.cutJournalAt = undefined;
    const manifest: Manifest = {
      format: FORMAT,
      journal: this.journal,
      root,
      files: Object.fromEntries(this.files),
    };
    const tmp = `${this.manifestPath}.${process.pid}-${rand()}.tmp`;
    writeNew(tmp, JSON.stringify(manifest));
    renameSync(tmp, this.manifestPath);
  }

  /** Deletes segment files, journals and temporary files the manifest does not name. */
  private removeUnreferenced(): void {
    const keep = new Set<string>();
    for (const f of this.files.values()) {
      if (f.file) keep.add(f.file);
      if (f.index) keep.add(f.index);
      for (const s of f.shards ?? []) keep.add(s);
    }
    if (existsSync(this.segDir))
      for (const f of readdirSync(this.segDir))
        if (!keep.has(f)) rmSync(join(this.segDir, f), { force: true });
    for (const f of readdirSync(this.dir)) {
      if (
        (f.startsWith("sandbox-journal-") && f !== this.journal) ||
        /^sandbox-state\.json\..*\.tmp$/.test(f)
      )
        rmSync(join(this.dir, f), { force: true });
    }
  }
}

/** The store of a data dir (its big parts load on first use), or undefined for an empty dir. */
export function loadSnapshot(dataDir: string): Store | undefined {
  if (!existsSync(snapshotPath(dataDir))) return undefined;
  return SandboxPersistence.open(dataDir).store;
}

/** Bytes the sandbox's files take in a data dir (manifest, journal, segments). */
export function persistedBytes(dataDir: string): number {
  let n = 0;
  for (const p of persistedFiles(dataDir)) n += statSync(p).size;
  return n;
}

/** Everything the sandbox wrote in a data dir, as text (for tests that look for a value on disk). */
export function persistedText(dataDir: string): string {
  return persistedFiles(dataDir)
    .map((p) => readFileSync(p, "utf8"))
    .join("\n");
}

function persistedFiles(dataDir: string): string[] {
  const out: string[] = [];
  if (existsSync(snapshotPath(dataDir))) out.push(snapshotPath(dataDir));
  for (const f of existsSync(dataDir) ? readdirSync(dataDir) : [])
    if (f.startsWith("sandbox-journal-")) out.push(join(dataDir, f));
  const seg = join(dataDir, SEGMENT_DIR);
  for (const f of existsSync(seg) ? readdirSync(seg) : []) out.push(join(seg, f));
  return out;
}
