// The sandbox's state on disk: loaded lazily, written incrementally, never rewritten on a read.
//
// Files in the data dir (all 0600, the segment directory 0700):
//   sandbox-state.json               the manifest: {"format": 2, "root", "files", "journal"}. `root` is
//                                    the small part of the state; `files` names the file that holds
//                                    each segment and blob (segments.ts says what those are).
//   sandbox-journal-<x>.ndjson       the commits since the manifest was written, one line each:
//                                    `<json>\t<hash>\n` (a line that is cut short or does not match its
//                                    hash, as a crash mid-append leaves it, ends the journal).
//   sandbox-segments/<id>-<x>.json   segment and blob files; a file is never changed once written.
//
// A commit (after the changes of a request, debounced by server.ts) appends one journal line: the
// entries of the segments that changed, a new file for a segment or blob written whole (fresh,
// largely changed, or a blob that changed), and the root when it changed. Nothing is written when
// nothing changed. When the journal has grown past a quarter of the data (or the data that is no
// longer reachable has), a compaction folds it into new segment files and a new manifest (written
// aside, then renamed over the old one) and deletes what is no longer referenced.
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
  TrackedMap,
} from "./segments.js";
import type { Store } from "./store.js";

const SNAPSHOT = "sandbox-state.json";
const SEGMENT_DIR = "sandbox-segments";
const FORMAT = 2;
/** The journal is compacted once it is larger than this and than a quarter of the data files. */
const COMPACT_MIN_BYTES = 4 * 1024 * 1024;
/** Up to this many changed keys, a commit looks up their lines in the file instead of hashing it all. */
const FEW_KEYS = 64;
/** A segment is written whole (not as journal entries) once this share of it changed in one commit. */
const REWRITE_SHARE = 0.25;

export function snapshotPath(dataDir: string): string {
  return join(dataDir, SNAPSHOT);
}

interface FileInfo {
  file: string;
  /** Segments and blobs this file refers to. */
  refs: string[];
  bytes: number;
}

type FileOp = { id: string; file: string; refs: string[]; bytes: number };
type Op =
  | { root: unknown }
  | FileOp
  | { id: string; del?: unknown[]; set?: [unknown, unknown][]; plain: boolean };

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

/** The key of a segment file line `[key,value]` (or of a journal entry re-serialized the same way). */
function keyOfLine(line: string): unknown {
  if (line[1] === '"') {
    let i = 2;
    while (i < line.length && line[i] !== '"') i += line[i] === "\\" ? 2 : 1;
    return JSON.parse(line.slice(1, i + 1));
  }
  return JSON.parse(line.slice(1, line.indexOf(",")));
}

/** The entry lines of a segment file's text (see writeSegment for the layout). */
function entryLines(text: string): string[] {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 1; i < lines.length - 1; i++) {
    const l = lines[i]!;
    out.push(l.endsWith(",") ? l.slice(0, -1) : l);
  }
  return out;
}

export class SandboxPersistence implements SegmentSource {
  readonly dir: string;
  private readonly segDir: string;
  private readonly manifestPath: string;
  private journal = "";
  private journalBytes = 0;
  /** Bytes at the end of the journal that a crash left unfinished: cut before the next append. */
  private cutJournalAt: number | undefined;
  private readonly files = new Map<string, FileInfo>();
  /** Journal entries of each segment since its file. */
  private readonly segOps = new Map<
    string,
    { del?: unknown[]; set?: [unknown, unknown][]; plain: boolean }[]
  >();
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
    if (!(store?.orgs instanceof Map) || !(store.keys instanceof Map) || !store.defaultKeys) {
      throw new UsageError(
        `${p.manifestPath} is not a sandbox state file.`,
        "Move the file aside (or delete it) to start the sandbox from its seed.",
      );
    }
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
          else if ("file" in op) {
            this.files.set(op.id, { file: op.file, refs: op.refs, bytes: op.bytes });
            this.segOps.delete(op.id);
          } else {
            const list = this.segOps.get(op.id) ?? [];
            list.push({ del: op.del, set: op.set, plain: op.plain });
            this.segOps.set(op.id, list);
          }
        }
        good = nl + 1;
      }
      this.journalBytes = good;
      if (good < text.length) this.cutJournalAt = good;
    }
    this.rootText = JSON.stringify(root);
    const store = decode(root, this) as Store;
    if (!(store?.orgs instanceof Map) || !(store.keys instanceof Map) || !store.defaultKeys)
      throw new UsageError(
        `${this.manifestPath} is not a sandbox state file.`,
        "Move the data directory aside (or delete it) to start the sandbox from its seed.",
      );
    return store;
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

  private readFile(id: string): string {
    const f = this.files.get(id);
    if (!f) throw new Error(`The sandbox data in ${this.dir} is damaged: nothing is known of part ${id}.`);
    try {
      return readFileSync(join(this.segDir, f.file), "utf8");
    } catch (err) {
      throw new Error(
        `The sandbox data in ${this.dir} is damaged: ${join(SEGMENT_DIR, f.file)} cannot be read (${(err as NodeJS.ErrnoException).code}).`,
      );
    }
  }

  loadSegment(id: string, into: (k: unknown, v: unknown) => void, remove: (k: unknown) => void): void {
    const doc = JSON.parse(this.readFile(id)) as { plain: boolean; entries: [unknown, unknown][] };
    if (doc.plain) for (const [k, v] of doc.entries) into(k, v);
    else for (const [k, v] of doc.entries) into(k, decode(v, this));
    for (const op of this.segOps.get(id) ?? []) {
      for (const k of op.del ?? []) remove(k);
      for (const [k, v] of op.set ?? []) into(k, op.plain ? v : decode(v, this));
    }
  }

  loadBlob(id: string): unknown {
    const text = this.readFile(id);
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
    for (const op of ops) if ("file" in op) this.files.set(op.id, op);
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
    for (const op of ops) {
      if ("file" in op) {
        this.files.set(op.id, { file: op.file, refs: op.refs, bytes: op.bytes });
        this.segOps.delete(op.id);
      } else if ("id" in op) {
        const list = this.segOps.get(op.id) ?? [];
        list.push({ del: op.del, set: op.set, plain: op.plain });
        this.segOps.set(op.id, list);
      }
    }
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
    if (!s.loaded) return;
    if (s.fresh) {
      ops.push(this.writeSegment(m));
      return;
    }
    if (!s.all && s.touched.size === 0) return;
    let keys: Iterable<unknown>;
    if (s.all || s.touched.size > FEW_KEYS) {
      if (!s.baselineComplete) {
        s.baseline = this.baselineOf(s.id);
        s.baselineComplete = true;
      }
    } else {
      // A few keys: their lines are looked up in the file, not the whole file hashed.
      s.baseline ??= new Map();
      const missing = [...s.touched].filter((k) => !s.baseline!.has(k));
      if (!s.baselineComplete && missing.length)
        for (const [k, h] of this.baselineOf(s.id, missing)) s.baseline.set(k, h);
    }
    const baseline = s.baseline!;
    if (s.all) {
      const all = new Set<unknown>();
      for (const [k] of m.rawEntries()) all.add(k);
      for (const [k, h] of baseline) if (h !== null) all.add(k);
      keys = all;
    } else keys = s.touched;
    const del: unknown[] = [];
    const set: [unknown, unknown][] = [];
    const hashes: number[] = [];
    let added = 0;
    const enc = new Encoder(this);
    for (const k of keys) {
      const known = baseline.get(k) ?? undefined;
      if (!m.rawHas(k)) {
        if (known !== undefined) del.push(k);
        continue;
      }
      const tree = enc.encode(m.rawGet(k));
      const h = hash53(JSON.stringify([k, tree]));
      if (known !== undefined && s.deleted.has(k)) del.push(k);
      else if (known === h) continue;
      if (known === undefined) added++;
      set.push([k, tree]);
      hashes.push(h);
    }
    if (added > 1 && !s.all) {
      // New keys go to the end in the Map's own order.
      const pos = new Map<unknown, number>();
      let i = 0;
      for (const [k] of m.rawEntries()) pos.set(k, i++);
      const order = set
        .map((e, j) => [e, hashes[j]!] as const)
        .sort((a, b) => pos.get(a[0][0])! - pos.get(b[0][0])!);
      set.length = 0;
      hashes.length = 0;
      for (const [e, h] of order) {
        set.push(e);
        hashes.push(h);
      }
    }
    s.touched.clear();
    s.all = false;
    s.deleted.clear();
    if (del.length === 0 && set.length === 0) return;
    if (set.length + del.length > Math.max(500, m.rawSize() * REWRITE_SHARE)) {
      ops.push(this.writeSegment(m));
      return;
    }
    for (const k of del) baseline.set(k, null);
    for (let j = 0; j < set.length; j++) baseline.set(set[j]![0], hashes[j]!);
    const op: Op = { id: s.id, plain: enc.plain };
    if (del.length) op.del = del;
    if (set.length) op.set = set;
    ops.push(op);
  }

  private processBlob(b: BlobRef, ops: Op[]): void {
    if (!b.loaded || blobOf(b.holder, b.key) !== b) return;
    const enc = new Encoder(this);
    const tree = enc.encode((b.holder as Record<string, unknown>)[b.key]);
    const text = JSON.stringify(tree ?? null);
    const h = hash53(text);
    if (!b.fresh) {
      if (b.baseline === undefined) {
        const old = this.readFile(b.id);
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

  /** Writes a segment whole; its journal entries so far are folded in. */
  private writeSegment(m: TrackedMap): FileOp {
    const s = m[SEG];
    const enc = new Encoder(this);
    const lines: string[] = [];
    const baseline = new Map<unknown, number | null>();
    for (const [k, v] of m.rawEntries()) {
      const line = JSON.stringify([k, enc.encode(v)]);
      lines.push(line);
      baseline.set(k, hash53(line));
    }
    const op = this.writeSegmentLines(s.id, lines, enc.plain);
    s.fresh = false;
    s.baseline = baseline;
    s.baselineComplete = true;
    s.touched.clear();
    s.all = false;
    s.deleted.clear();
    return op;
  }

  private writeSegmentLines(id: string, lines: string[], plain: boolean): FileOp {
    const head = JSON.stringify({ format: FORMAT, kind: "map", plain, entries: [] }).slice(0, -3);
    const body = `${head}[\n${lines.join(",\n")}\n]}`;
    const file = `${id}-${rand()}.json`;
    mkdirSync(this.segDir, { recursive: true, mode: 0o700 });
    writeNew(join(this.segDir, file), body);
    return { id, file, refs: plain ? [] : refsIn(body), bytes: Buffer.byteLength(body) };
  }

  /**
   * Hash of the entry lines of a segment as it is on disk (file, then journal entries): all of them,
   * or those of `only` (null for a key that is not there).
   */
  private baselineOf(id: string, only?: unknown[]): Map<unknown, number | null> {
    const out = new Map<unknown, number | null>();
    const text = this.readFile(id);
    if (only) {
      for (const k of only) {
        // Each entry is a line `[key,value]`; JSON.stringify escapes any newline inside it.
        const needle = `\n${JSON.stringify([k]).slice(0, -1)},`;
        const at = text.indexOf(needle);
        if (at < 0) out.set(k, null);
        else {
          const end = text.indexOf("\n", at + 1);
          const line = text.slice(at + 1, end < 0 ? undefined : end);
          out.set(k, hash53(line.endsWith(",") ? line.slice(0, -1) : line));
        }
      }
    } else for (const line of entryLines(text)) out.set(keyOfLine(line), hash53(line));
    const wanted = only ? new Set(only) : undefined;
    for (const op of this.segOps.get(id) ?? []) {
      for (const k of op.del ?? []) if (!wanted || wanted.has(k)) out.set(k, null);
      for (const e of op.set ?? []) if (!wanted || wanted.has(e[0])) out.set(e[0], hash53(JSON.stringify(e)));
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

  /** Folds the journal into new files and a new manifest, then deletes what nothing refers to. */
  compact(): void {
    const live = this.reachable();
    for (const id of [...this.files.keys()]) if (!live.has(id)) this.files.delete(id);
    for (const [id, list] of this.segOps) {
      if (!live.has(id) || list.length === 0) continue;
      const text = this.readFile(id);
      const entries = new Map<unknown, string>();
      for (const line of entryLines(text)) entries.set(keyOfLine(line), line);
      let plain = /"plain":true/.test(text.slice(0, text.indexOf("\n")));
      for (const op of list) {
        for (const k of op.del ?? []) entries.delete(k);
        for (const e of op.set ?? []) entries.set(e[0], JSON.stringify(e));
        plain &&= op.plain;
      }
      const op = this.writeSegmentLines(id, [...entries.values()], plain);
      this.files.set(id, { file: op.file, refs: op.refs, bytes: op.bytes });
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
    const keep = new Set([...this.files.values()].map((f) => f.file));
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
  const add = (p: string) => {
    if (existsSync(p)) n += statSync(p).size;
  };
  add(snapshotPath(dataDir));
  for (const f of existsSync(dataDir) ? readdirSync(dataDir) : [])
    if (f.startsWith("sandbox-journal-")) add(join(dataDir, f));
  const seg = join(dataDir, SEGMENT_DIR);
  for (const f of existsSync(seg) ? readdirSync(seg) : []) add(join(seg, f));
  return n;
}

/** Everything the sandbox wrote in a data dir, as text (for tests that look for a value on disk). */
export function persistedText(dataDir: string): string {
  const parts: string[] = [];
  const read = (p: string) => {
    if (existsSync(p)) parts.push(readFileSync(p, "utf8"));
  };
  read(snapshotPath(dataDir));
  for (const f of existsSync(dataDir) ? readdirSync(dataDir) : [])
    if (f.startsWith("sandbox-journal-")) read(join(dataDir, f));
  const seg = join(dataDir, SEGMENT_DIR);
  for (const f of existsSync(seg) ? readdirSync(seg) : []) read(join(seg, f));
  return parts.join("\n");
}
