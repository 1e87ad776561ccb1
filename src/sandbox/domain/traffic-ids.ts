// Ids of redemptions and claims: a keyed Feistel permutation over 48 bits (two 24-bit halves),
// invertible, so an id is computed from its index and parsed back on lookup (see traffic.ts).
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

/** Maps indexes to UUID-shaped ids and back, for one organization and one kind of record. */
export class IdCodec {
  readonly keys: number[];
  /** The constant tail: "-4xxx-yxxx-xxxxxxxxxxxx". */
  private readonly tail: string;
  constructor(salt: string) {
    const b = Buffer.from(salt, "hex");
    this.keys = [b.readUInt32BE(0), b.readUInt32BE(4), b.readUInt32BE(8), b.readUInt32BE(12)];
    const h = b.toString("hex");
    const variant = "89ab"[b[16 % b.length]! & 3]!;
    this.tail = `-4${h.slice(0, 3)}-${variant}${h.slice(3, 6)}-${h.slice(6, 18)}`;
  }
  static newSalt(): string {
    return randomBytes(16).toString("hex");
  }
  idOf(i: number): string {
    const [l, r] = permute(i, this.keys);
    return `${HEX2[l >>> 16]}${HEX2[(l >>> 8) & 255]}${HEX2[l & 255]}${HEX2[r >>> 16]}-${HEX2[(r >>> 8) & 255]}${HEX2[r & 255]}${this.tail}`;
  }
  /** The index of an id, or undefined when the id is not one of ours. */
  indexOf(id: string): number | undefined {
    const s = id.toLowerCase();
    if (s.length !== 36 || !s.endsWith(this.tail) || s[8] !== "-") return undefined;
    const head = s.slice(0, 8) + s.slice(9, 13);
    if (!/^[0-9a-f]{12}$/.test(head)) return undefined;
    return unpermute(Number.parseInt(head.slice(0, 6), 16), Number.parseInt(head.slice(6), 16), this.keys);
  }
}
