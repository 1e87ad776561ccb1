// Report days in the organization's reporting time zone (spec: Date ranges, Report field semantics 1),
// for the sandbox's reports and feed and for the CLI (sync's redeemed_day). Day boundaries come from a
// real time-zone implementation (temporal-polyfill), so DST days have 23 or 25 hours. Calendar
// arithmetic on `YYYY-MM-DD` needs no time zone and uses UTC dates.
import { Temporal } from "temporal-polyfill";
import { inclusiveDays, type RangePreset } from "./ranges.js";

/** True when `tz` is an IANA time-zone name the runtime knows. */
export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z]/.test(tz)) return false;
  try {
    Temporal.Now.instant().toZonedDateTimeISO(tz);
    return true;
  } catch {
    return false;
  }
}

/** The calendar day of an instant (epoch milliseconds) in `tz`. */
export function dayOfMs(ms: number, tz: string): string {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz).toPlainDate().toString();
}

/** The first instant (epoch milliseconds) of a calendar day in `tz` (not always 00:00 on DST days). */
export function startOfDayMs(day: string, tz: string): number {
  return Temporal.PlainDate.from(day).toZonedDateTime({ timeZone: tz }).epochMilliseconds;
}

/** `day` plus `n` calendar days. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Every day from `from` through `through`, inclusive. */
export function daysOf(from: string, through: string): string[] {
  const n = inclusiveDays(from, through);
  const out: string[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = addDays(from, i);
  return out;
}

/** The days of a preset, on a clock reading `nowMs`, in `tz`. */
export function presetRange(
  preset: RangePreset,
  nowMs: number,
  tz: string,
): { from: string; through: string } {
  const today = dayOfMs(nowMs, tz);
  switch (preset) {
    case "today":
      return { from: today, through: today };
    case "7d":
      return { from: addDays(today, -6), through: today };
    case "30d":
      return { from: addDays(today, -29), through: today };
    case "90d":
      return { from: addDays(today, -89), through: today };
    case "this-month":
      return { from: `${today.slice(0, 8)}01`, through: today };
    case "last-month": {
      const firstOfThis = `${today.slice(0, 8)}01`;
      const lastOfPrev = addDays(firstOfThis, -1);
      return { from: `${lastOfPrev.slice(0, 8)}01`, through: lastOfPrev };
    }
  }
}

/**
 * Day boundaries of a range in epoch seconds: element i is the first second of day i, the last
 * element is the first second after `through`. A range of n days gives n + 1 boundaries.
 */
export function dayBoundariesSec(from: string, through: string, tz: string): Float64Array {
  const days = daysOf(from, through);
  const out = new Float64Array(days.length + 1);
  for (let i = 0; i < days.length; i++) out[i] = Math.floor(startOfDayMs(days[i]!, tz) / 1000);
  out[days.length] = Math.floor(startOfDayMs(addDays(through, 1), tz) / 1000);
  return out;
}

/** Index of the day holding `sec` (binary search over boundaries), or -1 outside the range. */
export function dayIndex(bounds: Float64Array, sec: number): number {
  const n = bounds.length - 1;
  if (n < 0 || sec < bounds[0]! || sec >= bounds[n]!) return -1;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (bounds[mid]! <= sec) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
