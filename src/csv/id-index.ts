// The set of ids an import has seen, with the line each first appeared on, kept compact: a 64-bit
// fingerprint and a line number per id (12 bytes) in typed arrays with open addressing, at most 70%
// full, outside the garbage-collected heap. Sized once from the row count when it is known. A
// JavaScript Map of a million short strings costs five times that and slows every garbage collection.
//
// Two different ids share a fingerprint with a probability of about n²/2⁶⁵ (3·10⁻⁸ for a million
// ids); the import would then report the second as "also on line N": loudly, never silently.

/** The fingerprint last computed by `fingerprint` (two halves; 0/0 marks an empty slot). */
let fpA = 0;
let fpB = 0;

/**
 * FNV-1a and a multiply-xorshift hash over the UTF-16 code units: two independent 32-bit halves, left
 * in fpA/fpB (no array per id).
 */
function fingerprint(s: string): void {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  a >>>= 0;
  b >>>= 0;
  if (a === 0 && b === 0) a = 1;
  fpA = a;
  fpB = b;
}

const MAX_LOAD = 0.7;

export class IdIndex {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private lines: Uint32Array;
  private count = 0;

  /** `expected`: how many ids will be added, when known (no regrowth up to that). */
  constructor(expected = 0) {
    const cap = Math.max(1024, Math.ceil(expected / MAX_LOAD) + 1);
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.lines = new Uint32Array(cap);
  }

  private slot(h: number, l: number, cap: number): number {
    return ((h ^ Math.imul(l, 0x27d4eb2d)) >>> 0) % cap;
  }

  /** The line `id` was first added with; or, for a new id, adds it with `line` and returns undefined. */
  firstLineOrAdd(id: string, line: number): number | undefined {
    fingerprint(id);
    const h = fpA;
    const l = fpB;
    const cap = this.hi.length;
    let i = this.slot(h, l, cap);
    for (;;) {
      const sh = this.hi[i]!;
      const sl = this.lo[i]!;
      if (sh === 0 && sl === 0) break;
      if (sh === h && sl === l) return this.lines[i];
      i = i + 1 === cap ? 0 : i + 1;
    }
    this.hi[i] = h;
    this.lo[i] = l;
    this.lines[i] = line;
    this.count++;
    if (this.count > cap * MAX_LOAD) this.grow();
    return undefined;
  }

  private grow(): void {
    const { hi, lo, lines } = this;
    const cap = hi.length * 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.lines = new Uint32Array(cap);
    for (let j = 0; j < hi.length; j++) {
      const h = hi[j]!;
      const l = lo[j]!;
      if (h === 0 && l === 0) continue;
      let i = this.slot(h, l, cap);
      while (this.hi[i] !== 0 || this.lo[i] !== 0) i = i + 1 === cap ? 0 : i + 1;
      this.hi[i] = h;
      this.lo[i] = l;
      this.lines[i] = lines[j]!;
    }
  }
}
