// Event ids: UUID version 7 (RFC 9562), monotonic within the process. The log is ordered by
// occurredAt then id; with random ids an event created later in the same second could sort before
// a reader's cursor and be skipped by the spec's replay loop. Time-ordered ids keep "by occurredAt,
// then id" equal to creation order, so a cursor never skips a later event.
import { randomBytes } from "node:crypto";

let lastMs = 0;
let counter = 0;

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
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
