// The event log over HTTP: order, opaque cursor, type filter, limit clamp, retention, types route.
import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES, strictEvents } from "../../src/spec/events.js";
import { toIso } from "../../src/sandbox/clock.js";
import { deliveryEngine } from "../../src/sandbox/delivery.js";
import type { EventEnvelope, OrgState } from "../../src/sandbox/store.js";
import { receiver } from "./webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";

const DAY = 86_400_000;
const s = useSandbox({ seed: "empty" });
let org: OrgState;
let other: OrgState;

beforeAll(async () => {
  const me = await s.http("GET", "/me");
  org = s.sb.sandbox.org(me.body.organization.id)!;
  const otherMe = await s.http("GET", "/me", { key: s.sb.testKeys.otherOrgKey });
  other = s.sb.sandbox.org(otherMe.body.organization.id)!;
});

const statusData = (name = "Spring") => ({
  campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name },
  from: "draft",
  to: "active",
});

function emit(state: OrgState, type = "campaign.status_changed", occurredAt?: string): EventEnvelope {
  return s.sb.sandbox.emit(state, type, statusData(), occurredAt ? { occurredAt } : {});
}

async function page(query: string, key?: string) {
  const r = await s.http("GET", `/events${query}`, key ? { key } : {});
  expect(r.status).toBe(200);
  return strictEvents.EventPage.parse(r.body);
}

async function readAll(query = "", limit = 1000) {
  const out: EventEnvelope[] = [];
  let cursor: string | null = null;
  for (;;) {
    const sep = query ? "&" : "";
    const p = await page(`?limit=${limit}${sep}${query}${cursor ? `&after=${cursor}` : ""}`);
    out.push(...(p.items as EventEnvelope[]));
    if (p.nextCursor === null) return out;
    cursor = p.nextCursor;
  }
}

const byPosition = (a: EventEnvelope, b: EventEnvelope) =>
  a.occurredAt !== b.occurredAt ? (a.occurredAt < b.occurredAt ? -1 : 1) : a.id < b.id ? -1 : 1;

describe("GET /events/types", () => {
  it("returns the eight types with descriptions, and wins over /events/{id}", async () => {
    const r = await s.http("GET", "/events/types");
    expect(r.status).toBe(200);
    const types = strictEvents.EventTypes.parse(r.body);
    expect(types.map((t) => t.type)).toEqual([...EVENT_TYPES]);
    for (const t of types) expect(t.description.length).toBeGreaterThan(10);
    const ro = await s.http("GET", "/events/types", { key: s.readOnlyKey });
    expect(ro.status).toBe(200);
  });
});

describe("GET /events", () => {
  it("lists oldest first by occurredAt then id, including events appended out of order", async () => {
    const now = s.sb.sandbox.clock.nowMs();
    const sameSecond = toIso(now - 5 * DAY);
    const made = [
      emit(org, "campaign.status_changed", toIso(now - DAY)),
      ...Array.from({ length: 6 }, () => emit(org, "campaign.status_changed", sameSecond)),
      emit(org, "campaign.status_changed", toIso(now - 10 * DAY)),
      emit(org),
    ];
    const all = await readAll();
    const ours = all.filter((e) => made.some((m) => m.id === e.id));
    expect(ours.map((e) => e.id)).toEqual([...made].sort(byPosition).map((e) => e.id));
    expect([...all].sort(byPosition)).toEqual(all);
    // Payloads as recorded.
    expect(ours[0]).toEqual(made.find((m) => m.id === ours[0]!.id));
  });

  it("pages with an opaque cursor; nextCursor is null exactly on the last page", async () => {
    const before = (await readAll()).length;
    for (let i = 0; i < 25 - (before % 25); i++) emit(org);
    const all = await readAll();
    expect(all.length % 25).toBe(0);
    const pages: { items: unknown[]; nextCursor: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const p = await page(`?limit=5${cursor ? `&after=${cursor}` : ""}`);
      pages.push(p);
      cursor = p.nextCursor;
    } while (cursor);
    expect(pages).toHaveLength(all.length / 5);
    expect(pages.every((p) => p.items.length === 5)).toBe(true);
    expect(pages.slice(0, -1).every((p) => p.nextCursor !== null)).toBe(true);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    expect(pages.flatMap((p) => p.items)).toEqual(all);
    const c = pages[0]!.nextCursor!;
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(c).not.toContain((all[4] as EventEnvelope).id);
  });

  it("supports the replay loop: keep the last non-null cursor; the last page repeats; nothing is skipped", async () => {
    let saved: string | null = null;
    let lastPage: EventEnvelope[] = [];
    const run = async () => {
      const read: string[] = [];
      let cursor = saved;
      for (;;) {
        const p = await page(`?limit=7${cursor ? `&after=${cursor}` : ""}`);
        lastPage = p.items as EventEnvelope[];
        read.push(...lastPage.map((e) => e.id));
        if (p.nextCursor === null) return read;
        cursor = p.nextCursor;
        saved = cursor;
      }
    };
    await run();
    const firstLast = lastPage.map((e) => e.id);
    expect(await run()).toEqual(firstLast);
    // Events created later in the same second as the cursor's position are not skipped.
    const fresh = Array.from({ length: 12 }, () => emit(org).id);
    const read = await run();
    for (const id of fresh) expect(read).toContain(id);
    expect(read.slice(0, firstLast.length)).toEqual(firstLast);
  });

  it("gives events time-ordered ids, so occurredAt-then-id order is creation order", () => {
    const made = Array.from({ length: 50 }, () => emit(org).id);
    expect([...made].sort()).toEqual(made);
    for (const id of made)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("an empty read answers {items: [], nextCursor: null}", async () => {
    const all = await readAll();
    const last = all.at(-1)!;
    const c = Buffer.from(JSON.stringify({ v: 1, o: last.occurredAt, i: last.id })).toString("base64url");
    expect(await page(`?after=${c}`)).toEqual({ items: [], nextCursor: null });
  });

  it("refuses an event id, a delivery id or garbage as a cursor", async () => {
    const e = emit(org);
    for (const after of [e.id, "6f1c2d8e-1111-4222-8333-944445555666", "%%%", "eyJ2IjoyfQ"]) {
      const r = await s.http("GET", `/events?after=${encodeURIComponent(after)}`);
      expect(r.status, after).toBe(400);
      expect(r.body.error.details.after).toEqual(["is not a valid cursor"]);
    }
  });

  it("filters by type, and refuses an unknown type", async () => {
    const low = s.sb.sandbox.emit(org, "campaign.supply_low", {
      campaign: statusData().campaign,
      codes: { limit: 10, issued: 9, remaining: 1 },
    });
    const items = await readAll("type=campaign.supply_low", 1);
    expect(items.length).toBeGreaterThanOrEqual(1);
    expect(items.every((e) => e.type === "campaign.supply_low")).toBe(true);
    expect(items.map((e) => e.id)).toContain(low.id);
    for (const t of ["campaign.*", "Campaign.Supply_Low", "nope"]) {
      const r = await s.http("GET", `/events?type=${encodeURIComponent(t)}`);
      expect(r.status).toBe(400);
      expect(r.body.error.details.type).toBeDefined();
    }
  });

  it("clamps limit to 1..1,000 (default 100) and refuses a non-integer", async () => {
    const have = (await readAll()).length;
    for (let i = have; i < 1005; i++) emit(org);
    expect((await page("")).items).toHaveLength(100);
    expect((await page("?limit=0")).items).toHaveLength(1);
    expect((await page("?limit=-7")).items).toHaveLength(1);
    const big = await page("?limit=5000");
    expect(big.items).toHaveLength(1000);
    expect(big.nextCursor).not.toBeNull();
    expect((await page("?limit=99999999999999999999")).items).toHaveLength(1000);
    for (const bad of ["abc", "1.5"]) {
      const r = await s.http("GET", `/events?limit=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.error.details.limit).toBeDefined();
    }
  });

  it("keeps the organizations apart", async () => {
    const theirs = emit(other);
    const mine = await readAll();
    expect(mine.map((e) => e.id)).not.toContain(theirs.id);
    const r = await s.http("GET", `/events/${theirs.id}`);
    expect(r.status).toBe(404);
    const theirList = await page("?limit=1000", s.sb.testKeys.otherOrgKey);
    expect(theirList.items.map((e) => e.id)).toContain(theirs.id);
  });

  it("returns the last 30 days on the sandbox clock only", async () => {
    const now = s.sb.sandbox.clock.nowMs();
    const old = emit(org, "campaign.status_changed", toIso(now - 31 * DAY));
    const recent = emit(org, "campaign.status_changed", toIso(now - 29 * DAY));
    let ids = (await readAll()).map((e) => e.id);
    expect(ids).not.toContain(old.id);
    expect(ids).toContain(recent.id);
    expect((await s.http("GET", `/events/${old.id}`)).status).toBe(404);
    expect((await s.http("GET", `/events/${recent.id}`)).status).toBe(200);
    await s.http("POST", "/advance", { control: true, body: { duration: "2d" } });
    ids = (await readAll()).map((e) => e.id);
    expect(ids).not.toContain(recent.id);
    expect((await s.http("GET", `/events/${recent.id}`)).status).toBe(404);
    // Pruned from the store as well.
    expect(org.events.list().some((e) => e.id === recent.id || e.id === old.id)).toBe(false);
  });
});

describe("GET /events/{id}", () => {
  it("returns one envelope, unwrapped; unknown ids answer 404", async () => {
    const e = emit(org);
    const r = await s.http("GET", `/events/${e.id}`, { key: s.readOnlyKey });
    expect(r.status).toBe(200);
    expect(strictEvents.TypedEnvelope.parse(r.body)).toEqual(e);
    expect((await s.http("GET", "/events/00000000-0000-0000-0000-000000000000")).status).toBe(404);
  });

  it("keeps the payload as recorded even if the emitter's object changes later", async () => {
    const data = statusData("Before");
    const e = s.sb.sandbox.emit(org, "campaign.status_changed", data);
    data.campaign.name = "After";
    const r = await s.http("GET", `/events/${e.id}`);
    expect(r.body.data.campaign.name).toBe("Before");
  });
});

describe("replay", () => {
  it("reading the log sends no webhooks", async () => {
    const rx = await receiver();
    try {
      const reg = await s.http("POST", "/webhooks", {
        body: { url: rx.url, eventTypes: [...EVENT_TYPES] },
      });
      expect(reg.status).toBe(201);
      await readAll();
      await s.http("GET", `/events/${(await page("?limit=1")).items[0]!.id}`);
      await deliveryEngine(s.sb.sandbox)!.quiet();
      expect(rx.requests).toHaveLength(0);
      await s.http("DELETE", `/webhooks/${reg.body.webhook.id}`);
    } finally {
      await rx.close();
    }
  });
});
