// The in-memory side of the sandbox's persistence (persist.ts holds the files): state stays plain
// Maps, arrays and objects that the handlers use as they are, but the big parts load on first use
// and know what changed since they were last written.
//
// - A *segment* is a Map with many entries (a roster, a campaign's links, the short codes). In memory
//   it is a TrackedMap: a Map whose methods load its entries from disk on first use and record which
//   keys may have changed (set, delete, and any object handed out by get or an iteration, since the
//   handlers change records in place). A plain Map that grows big is turned into one where it stands
//   (its prototype is swapped, so every reference to it stays valid).
// - A *blob* is a big value held by an object property (an event log, a job's id list, the traffic
//   columns): written as a whole, read by a getter on first use.
// - Everything else is the *root* document, small, read at start and compared as a whole.
//
// The encoded form is JSON with tags: {"$map": [[k, v]...]}, {"$set": [...]}, {"$seg": id} and, only
// as an object property, {"$blob": id}. An object with one of these as its only key reads as that tag
// (as in the first snapshot format).

import { type Flag, type KeyList, keysWithFlag, mergeSorted } from "./sorted-index.js";

/** Maps with at least this many entries are segments. */
export const SEGMENT_MIN_ENTRIES = 64;
/** Arrays held by an object property with at least this many items are blobs (as are toJSON values). */
export const BLOB_MIN_ITEMS = 256;
/** So is any other object or array held by a property whose text is at least this long. */
export const BLOB_MIN_CHARS = 128 * 1024;

/** 53-bit string hash (cyrb53): tells a changed entry from an unchanged one. */
export function hash53(s: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** What the in-memory side needs from the file side. */
export interface SegmentSource {
  /** How many shard files a segment has (entries are spread over them by key). */
  shardCount(id: string): number;
  /** Above every stored entry's place in the order (seq). */
  seqBound(id: string): number;
  /** The entries of one shard as written (its file, then the journal's changes), decoded. */
  loadShard(id: string, shard: number, each: (key: unknown, value: unknown, seq: number) => void): void;
  /**
   * The stored keys of a segment in string order (its sorted index with the journal laid over it),
   * those matching `flag` only; undefined when it has no index (or the flag is not indexed).
   */
  storedKeys(id: string, flag?: Flag): KeyList | undefined;
  /**
   * The stored value of one key (the journal's, else its line in its shard), a fresh object, without
   * loading the shard; undefined when it cannot be read that way (a value that is not plain).
   */
  readStored(id: string, key: unknown): { value: unknown } | undefined;
  /** A blob's value as written, decoded. */
  loadBlob(id: string): unknown;
  /** A fresh id for a new segment or blob. */
  newId(kind: "s" | "b"): string;
  /** Remembers a loaded segment or blob, so a commit looks at it. */
  track(item: TrackedMap | BlobRef): void;
}

/** The shard of a key among `count`. */
export function shardOf(key: unknown, count: number): number {
  return count <= 1 ? 0 : hash53(typeof key === "string" ? key : JSON.stringify(key)) % count;
}

export const SEG = Symbol("segment");

export interface SegState {
  id: string;
  src: SegmentSource;
  /** Shard files on disk (0 for a Map never written). */
  shards: number;
  /** Shards whose entries are in the Map. */
  loadedShards: Set<number>;
  /** Every shard is in and the Map is in its stored order (new keys after the stored ones). */
  full: boolean;
  /** Never written yet: the next commit writes it whole. */
  fresh: boolean;
  /** Place in the stored order of the stored keys loaded while not full. */
  seqOf: Map<unknown, number>;
  /** Keys set anew (or deleted and set again) while not full, in the order they were set. */
  added: Set<unknown>;
  /** Keys that may have changed since the last commit. */
  touched: Set<unknown>;
  /** Every entry may have changed (an iteration handed all of them out, or clear()). */
  all: boolean;
  /** Keys deleted since the last commit (a delete then a set moves the key to the end). */
  deleted: Set<unknown>;
  /**
   * Hash of entries as last written ([key, value] text; null for a key known to be absent), read
   * from disk when a commit first needs them: all (`baselineComplete`), or the keys it looked at.
   */
  baseline: Map<unknown, number | null> | undefined;
  baselineComplete: boolean;
}

/**
 * A Map that loads on first use and records what may have changed (see the file comment). get, has,
 * set and delete load only the shard of their key; anything that needs every entry or their order
 * (size, iteration, keys) loads all shards and puts the entries in their stored order.
 */
export class TrackedMap<K = unknown, V = unknown> extends Map<K, V> {
  declare [SEG]: SegState;

  static unloaded(id: string, src: SegmentSource): TrackedMap {
    const m = new TrackedMap();
    m[SEG] = newState(id, src, src.shardCount(id), false);
    return m;
  }

  /** Turns a plain Map into a segment where it stands (same object, new prototype). */
  static adopt(map: Map<unknown, unknown>, id: string, src: SegmentSource): TrackedMap {
    Object.setPrototypeOf(map, TrackedMap.prototype);
    const m = map as TrackedMap;
    m[SEG] = newState(id, src, 0, true);
    src.track(m);
    return m;
  }

  /** Loads the shard of `key`. */
  private ensureKey(key: K): SegState {
    const s = this[SEG];
    if (s.full) return s;
    const shard = shardOf(key, s.shards);
    if (!s.loadedShards.has(shard)) {
      s.loadedShards.add(shard);
      s.src.loadShard(s.id, shard, (k, v, seq) => {
        if (s.deleted.has(k) || s.added.has(k)) return;
        super.set(k as K, v as V);
        s.seqOf.set(k, seq);
      });
      if (s.loadedShards.size === s.shards) this.ensureAll();
      s.src.track(this);
    }
    return s;
  }

  /**
   * Loads every shard and puts the entries in their stored order (seq): the stored keys first, then
   * those set since (in the order they were set).
   */
  private ensureAll(): SegState {
    const s = this[SEG];
    if (s.full) return s;
    const bound = s.src.seqBound(s.id);
    const keys: unknown[] = new Array(bound);
    const values: unknown[] = new Array(bound);
    const present = new Uint8Array(bound);
    const late: [unknown, unknown, number][] = [];
    const place = (k: unknown, v: unknown, seq: number) => {
      if (seq >= 0 && seq < bound && !present[seq]) {
        keys[seq] = k;
        values[seq] = v;
        present[seq] = 1;
      } else late.push([k, v, seq]);
    };
    for (let shard = 0; shard < s.shards; shard++) {
      if (s.loadedShards.has(shard)) continue;
      s.loadedShards.add(shard);
      s.src.loadShard(s.id, shard, (k, v, seq) => {
        if (!s.deleted.has(k) && !s.added.has(k)) place(k, v, seq);
      });
    }
    const since: [K, V][] = [];
    if (super.size > 0) {
      for (const [k, v] of super.entries()) {
        const seq = s.seqOf.get(k);
        if (seq !== undefined && !s.added.has(k)) place(k, v, seq);
      }
      for (const k of s.added) if (super.has(k as K)) since.push([k as K, super.get(k as K) as V]);
      super.clear();
    }
    for (let i = 0; i < bound; i++) if (present[i]) super.set(keys[i] as K, values[i] as V);
    late.sort((a, b) => a[2] - b[2]);
    for (const [k, v] of late) super.set(k as K, v as V);
    for (const [k, v] of since) super.set(k, v);
    s.full = true;
    s.seqOf.clear();
    s.added.clear();
    s.src.track(this);
    return s;
  }

  override get(key: K): V | undefined {
    const s = this.ensureKey(key);
    const v = super.get(key);
    if (v !== null && typeof v === "object") s.touched.add(key);
    return v;
  }

  override has(key: K): boolean {
    this.ensureKey(key);
    return super.has(key);
  }

  override set(key: K, value: V): this {
    const s = this.ensureKey(key);
    s.touched.add(key);
    if (!s.full && !super.has(key)) {
      s.added.delete(key);
      s.added.add(key);
    }
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    const s = this.ensureKey(key);
    if (!super.has(key)) return false;
    s.touched.add(key);
    s.deleted.add(key);
    if (!s.full) s.added.delete(key);
    return super.delete(key);
  }

  override clear(): void {
    const s = this.ensureAll();
    s.all = true;
    for (const k of super.keys()) s.deleted.add(k);
    super.clear();
  }

  override get size(): number {
    this.ensureAll();
    return super.size;
  }

  override keys(): MapIterator<K> {
    this.ensureAll();
    return super.keys();
  }

  override values(): MapIterator<V> {
    this.ensureAll().all = true;
    return super.values();
  }

  override entries(): MapIterator<[K, V]> {
    this.ensureAll().all = true;
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    this.ensureAll().all = true;
    return super.entries();
  }

  override forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.ensureAll().all = true;
    super.forEach(fn, thisArg);
  }

  /**
   * The keys in string order (the API's list order), those whose boolean column `flag.name` is
   * `flag.value` only, from the segment's sorted index, without loading its entries (read them with
   * peek). Undefined when that cannot be done (the segment is in memory whole, was never written,
   * was written without an index, or the flag is not indexed): list it from its values then.
   */
  sortedKeys(flag?: Flag): KeyList | undefined {
    const s = this[SEG];
    if (s.full) return undefined;
    const stored = s.src.storedKeys(s.id, flag);
    if (!stored || (s.loadedShards.size === 0 && super.size === 0)) return stored;
    // The entries of loaded shards are in memory (with what changed since): those come from memory.
    const keep = stored
      .slice(0, stored.length)
      .filter((k) => !super.has(k as K) && !s.loadedShards.has(shardOf(k, s.shards)));
    const mine = keysWithFlag(super.entries(), flag);
    return mine && mergeSorted(keep, mine);
  }

  /**
   * The value of `key` without loading its shard or counting it as changed: for reading only, never
   * change what it returns.
   */
  peek(key: K): V | undefined {
    const s = this[SEG];
    if (s.full || s.loadedShards.has(shardOf(key, s.shards))) return super.get(key);
    const r = s.src.readStored(s.id, key);
    return r ? (r.value as V | undefined) : this.get(key);
  }

  /** Loads everything (for a commit that writes the segment whole). */
  loadAll(): void {
    this.ensureAll();
  }

  /** Entries in memory, without loading or tracking (for the commit). */
  rawEntries(): IterableIterator<[K, V]> {
    return super.entries();
  }

  rawHas(key: K): boolean {
    return super.has(key);
  }

  rawGet(key: K): V | undefined {
    return super.get(key);
  }

  rawSize(): number {
    return super.size;
  }
}

/** `map.get(key)` for reading only: a segment's entry is read without loading its shard. */
export function peek<K, V>(map: Map<K, V>, key: K): V | undefined {
  return map instanceof TrackedMap ? (map as TrackedMap<K, V>).peek(key) : map.get(key);
}

function newState(id: string, src: SegmentSource, shards: number, fresh: boolean): SegState {
  return {
    id,
    src,
    shards,
    loadedShards: new Set(),
    full: fresh || shards === 0,
    fresh,
    seqOf: new Map(),
    added: new Set(),
    touched: new Set(),
    all: fresh,
    deleted: new Set(),
    baseline: undefined,
    baselineComplete: false,
  };
}

/** A blob: the property `key` of `holder`. */
export interface BlobRef {
  id: string;
  holder: object;
  key: string;
  loaded: boolean;
  /** Never written yet. */
  fresh: boolean;
  /** Hash of the value's text as last written (read from disk when a commit first needs it). */
  baseline: number | undefined;
}

const blobs = new WeakMap<object, Map<string, BlobRef>>();

export function blobOf(holder: object, key: string): BlobRef | undefined {
  return blobs.get(holder)?.get(key);
}

function registerBlob(ref: BlobRef): void {
  let m = blobs.get(ref.holder);
  if (!m) {
    m = new Map();
    blobs.set(ref.holder, m);
  }
  m.set(ref.key, ref);
}

/** Makes `holder[key]` a blob read from disk on first use. */
export function lazyBlob(holder: object, key: string, id: string, src: SegmentSource): void {
  const ref: BlobRef = { id, holder, key, loaded: false, fresh: false, baseline: undefined };
  registerBlob(ref);
  const settle = (value: unknown) => {
    Object.defineProperty(holder, key, { value, writable: true, enumerable: true, configurable: true });
    if (!ref.loaded) {
      ref.loaded = true;
      src.track(ref);
    }
  };
  Object.defineProperty(holder, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = src.loadBlob(id);
      settle(value);
      return value;
    },
    set(value: unknown) {
      settle(value);
    },
  });
}

function adoptBlob(holder: object, key: string, src: SegmentSource): BlobRef {
  const ref: BlobRef = { id: src.newId("b"), holder, key, loaded: true, fresh: true, baseline: undefined };
  registerBlob(ref);
  src.track(ref);
  return ref;
}

function isBlobValue(v: unknown): boolean {
  if (Array.isArray(v)) return v.length >= BLOB_MIN_ITEMS;
  return (
    v !== null &&
    typeof v === "object" &&
    typeof (v as { toJSON?: unknown }).toJSON === "function" &&
    !(v instanceof Date) &&
    !ArrayBuffer.isView(v)
  );
}

const isContainer = (v: unknown) =>
  v !== null && typeof v === "object" && !(v instanceof Map) && !(v instanceof Set);

/** Encodes a value for the files: Maps, Sets, segments and blobs tagged. `plain` is false once a tag is used. */
export class Encoder {
  plain = true;
  /** Characters of the text so far, about: what makes a property's value big enough to be a blob. */
  size = 0;
  constructor(private readonly src: SegmentSource) {}

  encode(v: unknown): unknown {
    if (v === null || typeof v !== "object") {
      this.size += typeof v === "string" ? v.length + 3 : 6;
      return v;
    }
    if (v instanceof Map) {
      this.plain = false;
      if (v instanceof TrackedMap && v[SEG]) return { $seg: v[SEG].id };
      if (v.size >= SEGMENT_MIN_ENTRIES)
        return { $seg: TrackedMap.adopt(v, this.src.newId("s"), this.src)[SEG].id };
      const entries: [unknown, unknown][] = [];
      for (const [k, x] of v) entries.push([k, this.encode(x)]);
      return { $map: entries };
    }
    if (v instanceof Set) {
      this.plain = false;
      return { $set: [...v].map((x) => this.encode(x)) };
    }
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        const e = this.encode(x);
        if (e !== x && !out) out = v.slice(0, i);
        if (out) out.push(e === undefined ? null : e);
      }
      return out ?? v;
    }
    const toJSON = (v as { toJSON?: () => unknown }).toJSON;
    if (typeof toJSON === "function") return this.encode(toJSON.call(v));
    const known = blobs.get(v);
    let out: Record<string, unknown> | undefined;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      let e: unknown;
      let ref = known?.get(k);
      if (!ref) {
        const x = (v as Record<string, unknown>)[k];
        if (isBlobValue(x)) ref = adoptBlob(v, k, this.src);
        else {
          const before = this.size;
          const plainBefore = this.plain;
          e = this.encode(x);
          // Big once encoded (its own big parts already segments and blobs): a blob too.
          if (this.size - before >= BLOB_MIN_CHARS && isContainer(x)) {
            ref = adoptBlob(v, k, this.src);
            this.size = before;
            this.plain = plainBefore;
          }
        }
        if (!ref && e === x) {
          if (out) out[k] = e;
          continue;
        }
      }
      if (ref) {
        this.plain = false;
        e = { $blob: ref.id };
      }
      if (!out) {
        out = {};
        for (let j = 0; j < i; j++) out[keys[j]!] = (v as Record<string, unknown>)[keys[j]!];
      }
      out[k] = e;
    }
    return out ?? v;
  }
}

/** Decodes what Encoder wrote; segments and blobs come back unloaded. */
export function decode(v: unknown, src: SegmentSource): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = decode(v[i], src);
    return v;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1) {
    if (Array.isArray(o.$map))
      return new Map((o.$map as [unknown, unknown][]).map(([k, x]) => [k, decode(x, src)]));
    if (Array.isArray(o.$set)) return new Set((o.$set as unknown[]).map((x) => decode(x, src)));
    if (typeof o.$seg === "string") return TrackedMap.unloaded(o.$seg, src);
  }
  for (const k of keys) {
    const x = o[k];
    if (
      x !== null &&
      typeof x === "object" &&
      !Array.isArray(x) &&
      typeof (x as { $blob?: unknown }).$blob === "string" &&
      Object.keys(x).length === 1
    ) {
      lazyBlob(o, k, (x as { $blob: string }).$blob, src);
    } else o[k] = decode(x, src);
  }
  return o;
}

/** The ids of segments and blobs an encoded text refers to. */
export function refsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\{"\$(?:seg|blob)":"([^"\\]+)"\}/g)) out.push(m[1]!);
  return out;
}
