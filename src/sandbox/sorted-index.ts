// A segment's sorted index (persist.ts writes one with a segment's shard files): its keys in string
// order, which is the order of every list of the API (each sorts by the id its records are keyed
// by), and its boolean columns (`active`), so that a list serves a page by reading that page's
// records only, not the 50,000 of the segment.
//
// File: sandbox-segments/<id>-<x>.json: a line `{"format":2,"kind":"index","count":n,"flags":{...}}`,
// then the keys in order, one JSON string a line; `flags[column]` is a string of "1" and "0", one per
// key in that order. A page reads the lines of its keys only (no 50,000 strings made for 50). Written only for
// a list's records (string keys, each value a record holding its key in a field) when every value is
// plain (no segments or blobs inside). It describes the shard files only: the journal's changes are
// laid over it when it is read (storedKeys). A data dir written before indexes has none until a
// compaction writes them; its lists read the whole segment, as before.
import { isRecord } from "../spec/records.js";

/** The list order of the API: by UTF-16 code units, as `<` compares strings. */
export const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Keys in order: an array, or the lines of an index read only where asked. */
export interface KeyList {
  readonly length: number;
  slice(from: number, to: number): string[];
}

/** An index file read: its flags, and its keys read from their lines when asked. */
export class IndexDoc {
  private list: string[] | undefined;
  constructor(
    private readonly text: string,
    private readonly body: number,
    readonly count: number,
    readonly flags: Record<string, string>,
  ) {}

  /** Every key. */
  get keys(): string[] {
    this.list ??= this.at(Array.from({ length: this.count }, (_, i) => i));
    return this.list;
  }

  /** The keys at these places (increasing), reading the lines up to the last one only. */
  at(places: readonly number[]): string[] {
    if (this.list) return places.map((i) => this.list![i]!);
    const out: string[] = [];
    let line = 0;
    let pos = this.body;
    for (const want of places) {
      for (; line < want; line++) pos = this.text.indexOf("\n", pos) + 1;
      const end = this.text.indexOf("\n", pos);
      const raw = this.text.slice(pos, end);
      out.push(raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1));
      pos = end + 1;
      line++;
    }
    return out;
  }
}

/** What the journal changed since the index was written: a key's latest value, or null when deleted. */
export type Overrides = Map<string, unknown>;

/** A journal entry for one segment, as persist.ts keeps it. */
export interface JournalOp {
  del?: unknown[];
  set?: [unknown, unknown, number | null][];
  plain: boolean;
}

/**
 * The index text of a segment's entries (key, encoded value); undefined when the segment is not a
 * list's: a key that is not a string, or a value that is not a record holding its key in a field (a
 * creator under its externalId is one; a short code's {campaignId, externalId} is not).
 */
export function buildIndex(entries: Iterable<readonly unknown[]>): string | undefined {
  const rows: [string, unknown][] = [];
  let names: string[] | undefined;
  let keyed: string[] | undefined;
  for (const [k, tree] of entries) {
    if (typeof k !== "string" || !isRecord(tree)) return undefined;
    keyed = (keyed ?? Object.keys(tree)).filter((n) => tree[n] === k);
    if (keyed.length === 0) return undefined;
    rows.push([k, tree]);
    names = (names ?? Object.keys(tree)).filter((n) => typeof tree[n] === "boolean");
  }
  rows.sort((a, b) => byKey(a[0], b[0]));
  const flags: Record<string, string> = {};
  for (const n of names ?? []) {
    const bits = new Uint8Array(rows.length);
    for (let i = 0; i < rows.length; i++) bits[i] = (rows[i]![1] as Record<string, boolean>)[n] ? 49 : 48;
    flags[n] = Buffer.from(bits).toString("latin1");
  }
  return indexText(
    rows.map((r) => r[0]),
    flags,
  );
}

/** Whether an entry can be a list's: a string key, a record holding it in a field. */
export function listEntry(key: unknown, tree: unknown): boolean {
  if (typeof key !== "string" || !isRecord(tree)) return false;
  for (const n in tree) if (tree[n] === key) return true;
  return false;
}

function indexText(keys: string[], flags: Record<string, string>): string {
  const head = JSON.stringify({ format: 2, kind: "index", count: keys.length, flags });
  let text = `${head}\n`;
  for (const k of keys) text += `${JSON.stringify(k)}\n`;
  return text;
}

/**
 * The index of a segment after the journal's changes `over`, made from the index before them (the
 * records that did not change are not read); undefined when a changed value is not a list's.
 */
export function updatedIndex(doc: IndexDoc, over: Overrides): string | undefined {
  const added: string[] = [];
  for (const [k, v] of over) {
    if (v === null) continue;
    if (!listEntry(k, v)) return undefined;
    added.push(k);
  }
  added.sort(byKey);
  const names = Object.keys(doc.flags).filter((n) =>
    added.every((k) => flagOf(over.get(k), n) !== undefined),
  );
  const total = doc.keys.length + added.length;
  const keys: string[] = [];
  const bits = names.map(() => new Uint8Array(total));
  const old = names.map((n) => doc.flags[n]!);
  let i = 0;
  let j = 0;
  while (i < doc.keys.length || j < added.length) {
    const fromDoc = j >= added.length || (i < doc.keys.length && doc.keys[i]! < added[j]!);
    if (fromDoc && over.has(doc.keys[i]!)) {
      i++; // deleted, or changed (it is among `added`)
      continue;
    }
    const at = keys.length;
    if (fromDoc) {
      for (let n = 0; n < names.length; n++) bits[n]![at] = old[n]!.charCodeAt(i);
      keys.push(doc.keys[i++]!);
    } else {
      const k = added[j++]!;
      for (let n = 0; n < names.length; n++) bits[n]![at] = flagOf(over.get(k), names[n]!) ? 49 : 48;
      keys.push(k);
    }
  }
  const flags: Record<string, string> = {};
  names.forEach((n, x) => {
    flags[n] = Buffer.from(bits[x]!.subarray(0, keys.length)).toString("latin1");
  });
  return indexText(keys, flags);
}

/** An index file's content, or undefined when it is not one (then the segment is read whole). */
export function parseIndex(text: string): IndexDoc | undefined {
  const nl = text.indexOf("\n");
  let head: { kind?: unknown; count?: unknown; flags?: unknown };
  try {
    head = JSON.parse(text.slice(0, nl < 0 ? undefined : nl));
  } catch {
    return undefined;
  }
  if (!isRecord(head) || head.kind !== "index" || !isRecord(head.flags)) return undefined;
  const count = head.count;
  if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0) return undefined;
  for (const f of Object.values(head.flags))
    if (typeof f !== "string" || f.length !== count) return undefined;
  // One line a key, each a JSON string: counted, not read.
  let lines = 0;
  for (let at = text.indexOf("\n", nl + 1); at >= 0; at = text.indexOf("\n", at + 1)) lines++;
  if (lines !== count || !text.endsWith("\n") || (count > 0 && text[nl + 1] !== '"')) return undefined;
  return new IndexDoc(text, nl + 1, count, head.flags as Record<string, string>);
}

/**
 * The journal's changes of one segment, latest last wins: undefined when they cannot be laid over an
 * index (a value that is not plain, a key that is not a string).
 */
export function overridesOf(ops: readonly JournalOp[]): Overrides | undefined {
  const out: Overrides = new Map();
  for (const op of ops) {
    if (!op.plain) return undefined;
    for (const k of op.del ?? []) {
      if (typeof k !== "string") return undefined;
      out.set(k, null);
    }
    for (const [k, tree] of op.set ?? []) {
      if (typeof k !== "string") return undefined;
      out.set(k, tree);
    }
  }
  return out;
}

/** Where `key` is in sorted `keys`, or -1. */
export function findKey(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Whether the journal's changes leave an index as it is: no key added or deleted, no flag changed. */
export function indexUnchanged(doc: IndexDoc, over: Overrides): boolean {
  for (const [k, v] of over) {
    if (v === null) return false;
    const i = findKey(doc.keys, k);
    if (i < 0) return false;
    for (const [name, bits] of Object.entries(doc.flags))
      if (flagOf(v, name) !== (bits.charCodeAt(i) === 49)) return false;
  }
  return true;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

/** A filter on a boolean column. */
export interface Flag {
  name: string;
  value: boolean;
}

/** The flag of a value (an object), or undefined when it has no boolean there. */
export function flagOf(value: unknown, name: string): boolean | undefined {
  const b = isRecord(value) ? value[name] : undefined;
  return typeof b === "boolean" ? b : undefined;
}

/** Two lists sorted by key, merged (neither holds a key of the other). */
export function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return a as string[];
  if (a.length === 0) return b as string[];
  const out: string[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) out[n++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out;
}

/**
 * The keys stored (index, then the journal laid over it), sorted, those matching `flag` only; or
 * undefined when the flag is not indexed (or a changed value has no boolean there). The array may be
 * the index's own: callers do not change it.
 */
export function storedKeys(doc: IndexDoc, over: Overrides, flag?: Flag): KeyList | undefined {
  const bits = flag ? doc.flags[flag.name] : undefined;
  if (flag && bits === undefined) return undefined;
  const want = flag?.value ? 49 : 48;
  if (over.size === 0) {
    // The index alone: only the page's keys are read.
    if (bits === undefined)
      return { length: doc.count, slice: (a, b) => doc.at(range(a, Math.min(b, doc.count))) };
    const places: number[] = [];
    for (let i = 0; i < bits.length; i++) if (bits.charCodeAt(i) === want) places.push(i);
    return { length: places.length, slice: (a, b) => doc.at(places.slice(a, b)) };
  }
  const base: string[] = [];
  const keys = doc.keys;
  for (let i = 0; i < keys.length; i++) {
    if (bits !== undefined && bits.charCodeAt(i) !== want) continue;
    if (over.size > 0 && over.has(keys[i]!)) continue;
    base.push(keys[i]!);
  }
  const extra = keysWithFlag(over, flag);
  return extra && mergeSorted(base, extra);
}

/**
 * The keys of `entries` (in memory, or the journal laid over an index) whose value matches `flag`
 * (every key without one), sorted; null values (deleted) are left out. Undefined when a key is not a
 * string or a value has no boolean for the flag: the caller reads every record instead.
 */
export function keysWithFlag(
  entries: Iterable<[unknown, unknown]>,
  flag: Flag | undefined,
): string[] | undefined {
  const out: string[] = [];
  for (const [k, v] of entries) {
    if (typeof k !== "string") return undefined;
    if (v === null) continue;
    if (flag) {
      const b = flagOf(v, flag.name);
      if (b === undefined) return undefined;
      if (b !== flag.value) continue;
    }
    out.push(k);
  }
  return out.sort(byKey);
}
