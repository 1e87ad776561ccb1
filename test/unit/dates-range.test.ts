import { describe, expect, it } from "vitest";
import { resolveRange } from "../../src/sandbox/domain/dates.js";
import {
  addDays,
  dayBoundariesSec,
  dayIndex,
  dayOfMs,
  daysOf,
  presetRange,
  startOfDayMs,
} from "../../src/spec/days.js";
import { SandboxError } from "../../src/sandbox/errors.js";
import { rangeProblems } from "../../src/spec/reports.js";

const NY = "America/New_York";
const ms = (iso: string) => Date.parse(iso);

describe("days in a time zone", () => {
  it("takes the calendar day in the reporting time zone, not UTC", () => {
    expect(dayOfMs(ms("2026-03-10T03:30:00Z"), NY)).toBe("2026-03-09");
    expect(dayOfMs(ms("2026-03-10T04:00:00Z"), NY)).toBe("2026-03-10");
    expect(dayOfMs(ms("2026-03-10T03:30:00Z"), "UTC")).toBe("2026-03-10");
  });

  it("gives DST days 23 and 25 hours", () => {
    const spring = dayBoundariesSec("2026-03-07", "2026-03-09", NY);
    expect(spring[1]! - spring[0]!).toBe(24 * 3600);
    expect(spring[2]! - spring[1]!).toBe(23 * 3600);
    expect(spring[3]! - spring[2]!).toBe(24 * 3600);
    const fall = dayBoundariesSec("2026-11-01", "2026-11-01", NY);
    expect(fall[1]! - fall[0]!).toBe(25 * 3600);
  });

  it("puts an instant in the right day around the autumn change", () => {
    const b = dayBoundariesSec("2026-10-31", "2026-11-02", NY);
    const s = (iso: string) => ms(iso) / 1000;
    expect(dayIndex(b, s("2026-11-01T04:00:00Z"))).toBe(1); // 00:00 EDT Nov 1
    expect(dayIndex(b, s("2026-11-01T03:59:59Z"))).toBe(0); // 23:59:59 EDT Oct 31
    expect(dayIndex(b, s("2026-11-02T04:59:59Z"))).toBe(1); // 23:59:59 EST Nov 1 (25-hour day)
    expect(dayIndex(b, s("2026-11-02T05:00:00Z"))).toBe(2); // 00:00 EST Nov 2
    expect(dayIndex(b, s("2026-11-03T05:00:00Z"))).toBe(-1);
    expect(dayIndex(b, s("2026-10-31T03:59:59Z"))).toBe(-1);
  });

  it("handles a zone whose DST change skips midnight", () => {
    // America/Santiago springs forward at 24:00 → the day starts at 01:00.
    const start = startOfDayMs("2026-09-06", "America/Santiago");
    expect(new Date(start).toISOString()).toBe("2026-09-06T04:00:00.000Z");
  });

  it("does calendar arithmetic", () => {
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2026-01-01", -1)).toBe("2025-12-31");
    expect(daysOf("2026-02-27", "2026-03-02")).toEqual([
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
  });
});

describe("presets", () => {
  // 2026-03-01T03:00Z is still Feb 28 in New York.
  const now = ms("2026-03-01T03:00:00Z");
  it("computes each preset on the clock in the time zone", () => {
    expect(presetRange("today", now, NY)).toEqual({ from: "2026-02-28", through: "2026-02-28" });
    expect(presetRange("7d", now, NY)).toEqual({ from: "2026-02-22", through: "2026-02-28" });
    expect(presetRange("30d", now, NY)).toEqual({ from: "2026-01-30", through: "2026-02-28" });
    expect(presetRange("90d", now, NY)).toEqual({ from: "2025-12-01", through: "2026-02-28" });
    expect(presetRange("this-month", now, NY)).toEqual({ from: "2026-02-01", through: "2026-02-28" });
    expect(presetRange("last-month", now, NY)).toEqual({ from: "2026-01-01", through: "2026-01-31" });
    expect(presetRange("today", now, "UTC")).toEqual({ from: "2026-03-01", through: "2026-03-01" });
    expect(presetRange("last-month", ms("2026-01-15T12:00:00Z"), NY)).toEqual({
      from: "2025-12-01",
      through: "2025-12-31",
    });
  });

  it("defaults to 30d and echoes custom for explicit dates", () => {
    expect(resolveRange({}, now, NY)).toEqual({
      from: "2026-01-30",
      through: "2026-02-28",
      timeZone: NY,
      preset: "30d",
    });
    expect(resolveRange({ from: "2026-01-01", through: "2026-01-02" }, now, NY).preset).toBe("custom");
  });
});

describe("range rules", () => {
  const now = ms("2026-06-01T12:00:00Z");
  const refused = (input: Parameters<typeof resolveRange>[0], max?: number | null) => {
    try {
      resolveRange(input, now, NY, max === undefined ? {} : { maxDays: max });
    } catch (e) {
      expect(e).toBeInstanceOf(SandboxError);
      return (e as SandboxError).details;
    }
    throw new Error("accepted");
  };
  it("accepts 366 days and refuses 367 where capped", () => {
    expect(resolveRange({ from: "2025-01-01", through: "2026-01-01" }, now, NY).from).toBe("2025-01-01");
    expect(refused({ from: "2025-01-01", through: "2026-01-02" })).toHaveProperty("through");
    expect(resolveRange({ from: "2020-01-01", through: "2026-01-02" }, now, NY, { maxDays: null }).from).toBe(
      "2020-01-01",
    );
  });
  it("refuses bad days, through before from, a lone end and a preset with dates", () => {
    expect(refused({ from: "2026-02-30", through: "2026-03-01" })).toHaveProperty("from");
    expect(refused({ from: "2026-3-1", through: "2026-03-01" })).toHaveProperty("from");
    expect(refused({ from: "2026-03-02", through: "2026-03-01" })).toHaveProperty("through");
    expect(refused({ from: "2026-03-02" })).toHaveProperty("through");
    expect(refused({ through: "2026-03-02" })).toHaveProperty("from");
    expect(refused({ preset: "7d", from: "2026-03-01", through: "2026-03-02" })).toHaveProperty("preset");
    expect(refused({ preset: "week" })).toHaveProperty("preset");
    expect(rangeProblems({ preset: "90d" })).toEqual({});
  });
});
