// Event ids: UUID version 7 (RFC 9562), monotonic within the process. The log is ordered by
// occurredAt then id; with random ids an event created later in the same second could sort before
// a reader's cursor and be skipped by the spec's replay loop. Time-ordered ids keep "by occurredAt,
// then id" equal to creation order, so a cursor never skips a later event.
import { randomFillSync } from "node:crypto";

let lastMs = 0;
let counter = 0;

// Random bits come from a pool filled 4,096 ids at a time: one getrandom call per id cost more than
// the rest of an event (a simulate emits millions).
const POOL_IDS = 4096;
const pool = Buffer.alloc(POOL_IDS * 8);
let poolAt = pool.length;
const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const hex = (bytes: ArrayLike<number>, from: number, to: number) => {
  let s = "";
  for (let k = from; k < to; k++) s += HEX[bytes[k]!]!;
  return s;
};

/** A new UUIDv7 for time `nowMs` (the sandbox clock); strictly greater than every earlier one. */
export function newEventId(nowMs: number): string {
  let ms = Math.floor(nowMs);
  if (ms <= lastMs) {
    ms = lastMs;
    counter += 1;
    if (counter > 0xfff) {
      // 4,096 ids in one millisecond: borrow the next millisecond.
      ms += 1;
      counter = 0;
    }
  } else {
    counter = 0;
  }
  lastMs = ms;
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  // 48 bits of milliseconds, version 7 and the 12-bit counter, variant 10 and 62 random bits.
  const b = [
    Math.floor(ms / 2 ** 40) & 0xff,
    Math.floor(ms / 2 ** 32) & 0xff,
    (ms >>> 24) & 0xff,
    (ms >>> 16) & 0xff,
    (ms >>> 8) & 0xff,
    ms & 0xff,
    0x70 | (counter >> 8),
    counter & 0xff,
    0x80 | (pool[poolAt]! & 0x3f),
  ];
  const r = hex(pool, poolAt + 1, poolAt + 8);
  poolAt += 8;
  const h = hex(b, 0, 9);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 18)}${r.slice(0, 2)}-${r.slice(2)}`;
}
