// Plain JSON objects, for the compiled checks of API answers (src/api/) and for code that walks
// parsed JSON (output shaping, `partner-cli api`).

/** A JSON object: not null, not an array. */
export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Counts an object's enumerable keys, stopping past `max` (a check of an exact shape needs no more). */
export function keyCount(o: Record<string, unknown>, max: number): number {
  let n = 0;
  for (const _ in o) if (++n > max) break;
  return n;
}
