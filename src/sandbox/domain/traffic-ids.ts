// Ids of redemptions and claims: a keyed Feistel permutation over 48 bits (two 24-bit halves),
// invertible, so an id is computed from its index and parsed back on lookup (see traffic.ts); the
// other 74 bits of the version-4 UUID are a keyed hash of those 48, so no two ids share a suffix
// (a client keyed on the last hex digits would fail here as against a real service), and an id is
// ours only when its hash matches. Ids are not stored: a simulate makes millions.
import { randomBytes } from "node:crypto";

const M24 = 0xffffff;
function roundFn(x: number, k: number): number {
  let h = Math.imul(x ^ k, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h & M24;
}
export function permute(i: number, keys: readonly number[]): [number, number] {
  let l = Math.floor(i / 0x1000000) & M24;
  let r = i % 0x1000000;
  for (const k of keys) {
    const t = r;
    r = (l ^ roundFn(r, k)) & M24;
    l = t;
  }
  return [l, r];
}
function unpermute(l: number, r: number, keys: readonly number[]): number {
  for (let j = keys.length - 1; j >= 0; j--) {
    const t = l;
    l = (r ^ roundFn(l, keys[j]!)) & M24;
    r = t;
  }
  return l * 0x1000000 + r;
}
const HEX2: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

const hex24 = (v: number) => `${HEX2[v >>> 16]}${HEX2[(v >>> 8) & 255]}${HEX2[v & 255]}`;

/**
 * The id's last 18 hex digits and its variant ("-4xxx-yxxx-xxxxxxxxxxxx"): three 24-bit keyed
 * hashes of the permuted halves, different for every id.
 */
export function idTail(l: number, r: number, keys: readonly number[]): string {
  const a = roundFn(l ^ roundFn(r, keys[0]!), keys[1]!);
  const b = roundFn(r ^ a, keys[2]!);
  const c = roundFn(a ^ roundFn(b, keys[3]!), keys[0]! ^ l);
  const h = hex24(a) + hex24(b) + hex24(c);
  const variant = "89ab"[(c ^ (a >>> 3)) & 3]!;
  return `-4${h.slice(0, 3)}-${variant}${h.slice(3, 6)}-${h.slice(6, 18)}`;
}

/**
 * The tail of every id of a data dir written before ids had tails of their own (a salt without the
 * "2:" mark): a constant from the salt. Kept for those data dirs, whose ids are already in their
 * event logs and in copies made from them.
 */
function legacyTail(b: Buffer): string {
  const h = b.toString("hex");
  const variant = "89ab"[b[16 % b.length]! & 3]!;
  return `-4${h.slice(0, 3)}-${variant}${h.slice(3, 6)}-${h.slice(6, 18)}`;
}

/** Maps indexes to UUID-shaped ids and back, for one organization and one kind of record. */
export class IdCodec {
  readonly keys: number[];
  /** The tail of every id, for a data dir of the first id scheme; undefined: a tail per id. */
  private readonly constantTail: string | undefined;
  constructor(salt: string) {
    const marked = salt.startsWith("2:");
    const b = Buffer.from(marked ? salt.slice(2) : salt, "hex");
    this.keys = [b.readUInt32BE(0), b.readUInt32BE(4), b.readUInt32BE(8), b.readUInt32BE(12)];
    this.constantTail = marked ? undefined : legacyTail(b);
  }
  /** A new salt, of the scheme whose ids each have their own tail. */
  static newSalt(): string {
    return `2:${randomBytes(16).toString("hex")}`;
  }
  private tail(l: number, r: number): string {
    return this.constantTail ?? idTail(l, r, this.keys);
  }
  idOf(i: number): string {
    const [l, r] = permute(i, this.keys);
    const head = hex24(l) + hex24(r);
    return `${head.slice(0, 8)}-${head.slice(8)}${this.tail(l, r)}`;
  }
  /** The index of an id, or undefined when the id is not one of ours. */
  indexOf(id: string): number | undefined {
    const s = id.toLowerCase();
    if (s.length !== 36 || s[8] !== "-") return undefined;
    const head = s.slice(0, 8) + s.slice(9, 13);
    if (!/^[0-9a-f]{12}$/.test(head)) return undefined;
    const l = Number.parseInt(head.slice(0, 6), 16);
    const r = Number.parseInt(head.slice(6), 16);
    if (s.slice(13) !== this.tail(l, r)) return undefined;
    return unpermute(l, r, this.keys);
  }
}
