// The sandbox's truth, read with raw HTTP loops (not through the code under test), and the
// comparison of a synced database with it.
import { expect } from "vitest";
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import type { TestDest } from "./destinations.js";

async function get(sb: RunningSandbox, path: string, key?: string): Promise<any> {
  const r = await http(sb, "GET", path, key ? { key } : {});
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** id → countingState of every redemption in the feed. */
export async function redemptionStates(sb: RunningSandbox): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let after: string | undefined;
  for (;;) {
    const b = await get(sb, `/redemptions?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    for (const it of b.items) out.set(it.id, it.countingState);
    if (b.nextCursor === null || b.items.length === 0) break;
    after = b.nextCursor;
  }
  return out;
}

/** Ids of every non-sample event in the log. */
export async function eventIds(sb: RunningSandbox): Promise<Set<string>> {
  const out = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const b = await get(sb, `/events?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    for (const e of b.items) if (!e.sample) out.add(e.id);
    if (b.nextCursor === null || b.items.length === 0) break;
    after = b.nextCursor;
  }
  return out;
}

export async function allOf(sb: RunningSandbox, path: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 0; ; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const b = await get(sb, `${path}${sep}page=${page}&pageSize=200`);
    out.push(...b.items);
    if (b.items.length === 0 || (page + 1) * b.pageSize >= b.totalCount) break;
  }
  return out;
}

/** Asserts the database holds exactly the service's redemptions (ids, counting states) and events. */
export async function expectEqualsTruth(sb: RunningSandbox, dest: TestDest): Promise<void> {
  const truth = await redemptionStates(sb);
  const rows = await dest.query("SELECT id, counting_state FROM redemptions");
  const ids = rows.map((r) => String(r[0]));
  expect(ids.length).toBe(new Set(ids).size);
  expect(new Set(ids)).toEqual(new Set(truth.keys()));
  const wrong = rows.filter((r) => truth.get(String(r[0])) !== r[1]);
  expect(wrong, "rows whose counting_state differs from the service's").toEqual([]);
  const events = (await dest.query("SELECT id FROM events")).map((r) => String(r[0]));
  expect(events.length).toBe(new Set(events).size);
  expect(new Set(events)).toEqual(await eventIds(sb));
}

/** Each feed's item count in sync_state equals its table's rows: no page was committed twice or lost. */
export async function expectCountersMatch(dest: TestDest): Promise<void> {
  const st = new Map(
    (await dest.query("SELECT feed, items FROM sync_state")).map((r) => [String(r[0]), Number(r[1])]),
  );
  const n = async (t: string) => Number((await dest.query(`SELECT COUNT(*) FROM ${t}`))[0]![0]);
  expect(st.get("redemptions")).toBe(await n("redemptions"));
  expect(st.get("events")).toBe(await n("events"));
}
