// Shared reads and clock moves of the traffic, redemptions and reports conformance tests (campaigns and
// simulated traffic: test/helpers/fixtures.ts).
import { expect } from "vitest";
import { Temporal } from "temporal-polyfill";
import { http, type RunningSandbox } from "../helpers/sandbox.js";

export async function events(sb: RunningSandbox, type?: string): Promise<any[]> {
  const out: any[] = [];
  let after: string | null = null;
  for (;;) {
    const q = new URLSearchParams({ limit: "1000" });
    if (type) q.set("type", type);
    if (after) q.set("after", after);
    const res = await http(sb, "GET", `/events?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.items);
    if (!res.body.nextCursor) return out;
    after = res.body.nextCursor;
  }
}

/** Sets the organization's reporting time zone (control route). */
export async function setTimeZone(sb: RunningSandbox, tz: string) {
  const res = await http(sb, "POST", "/organization", { control: true, body: { reportingTimeZone: tz } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Moves the sandbox clock forward to an instant. */
export async function advanceTo(sb: RunningSandbox, isoOrMs: string | number) {
  const target = typeof isoOrMs === "number" ? isoOrMs : Date.parse(isoOrMs);
  const delta = Math.max(0, Math.ceil(target - sb.sandbox.clock.nowMs()));
  const res = await http(sb, "POST", "/advance", { control: true, body: { duration: delta } });
  expect(res.status).toBe(200);
}

/** Every redemption through the feed, oldest first. */
export async function feedAll(sb: RunningSandbox, limit = 1000): Promise<any[]> {
  const out: any[] = [];
  let after: string | null = null;
  for (;;) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (after) q.set("after", after);
    const res = await http(sb, "GET", `/redemptions?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.items);
    if (!res.body.nextCursor) return out;
    after = res.body.nextCursor;
  }
}

/** The UTC timestamp of a wall-clock time on a day in `tz` (e.g. "12:00:00"). */
export function instantIn(tz: string, day: string, time: string): string {
  const z = Temporal.PlainDateTime.from(`${day}T${time}`).toZonedDateTime(tz);
  return `${z.toInstant().toString({ smallestUnit: "second" })}`;
}
