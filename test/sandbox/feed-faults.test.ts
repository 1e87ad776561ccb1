// The sandbox's feed faults (POST /_sandbox/faults {feed}), over HTTP: each breaks the redemption
// feed or the event log the way docs/sandbox.md says, only where asked, until cleared; without one
// the feeds are answered as always.
import { beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../src/sandbox/handlers/redemptions.js";
import { emitStatusChanges, useFeedCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

type Page = { items: { id: string; recordedAt?: string; occurredAt?: string }[]; nextCursor: string | null };

describe("feed faults", () => {
  const box = useSandbox();
  useFeedCampaign(box, { claims: 130, redemptions: 120, seed: 9 });
  beforeAll(() => emitStatusChanges(box, 12));
  const get = async (path: string): Promise<Page> => {
    const r = await box.http("GET", path);
    expect(r.status).toBe(200);
    return r.body;
  };
  const setFault = async (feed: Record<string, unknown> | null) => {
    const r = await box.http("POST", "/faults", { control: true, body: { feed } });
    expect(r.status).toBe(200);
    return r.body;
  };
  const rdm = (offset: number, limit = 10) =>
    get(`/redemptions?limit=${limit}${offset ? `&after=${encodeCursor(offset)}` : ""}`);

  it("without a fault the feed pages are as always; a fault strikes only its page and is gone when cleared", async () => {
    const clean = [await rdm(10), await rdm(20), await rdm(30)];
    expect(clean[0]!.nextCursor).toBe(encodeCursor(20));
    expect((await setFault({ feed: "redemptions", kind: "cursor-loop", at: 20 })).feed).toEqual({
      feed: "redemptions",
      kind: "cursor-loop",
      at: 20,
    });
    expect(await rdm(10)).toEqual(clean[0]);
    expect(await rdm(20)).toEqual({ ...clean[1], nextCursor: encodeCursor(20) });
    expect(await rdm(20)).toEqual({ ...clean[1], nextCursor: encodeCursor(20) });
    expect(await rdm(30)).toEqual(clean[2]);
    await box.http("DELETE", "/faults", { control: true });
    expect(await rdm(20)).toEqual(clean[1]);
  });

  it("cursor-cycle points the page back at the cursor of the page before it", async () => {
    const before = await rdm(10);
    await setFault({ feed: "redemptions", kind: "cursor-cycle", at: 20 });
    try {
      expect((await rdm(10)).nextCursor).toBe(encodeCursor(20));
      const p = await rdm(20);
      expect(p.nextCursor).toBe(encodeCursor(10));
      expect(p.items.length).toBe(10);
      expect(await rdm(10)).toEqual(before);
    } finally {
      await setFault(null);
    }
  });

  it("repeat-ids starts every page from `at` on `count` items early; time-backwards moves one page back in time", async () => {
    const all = (await rdm(0, 1000)).items;
    await setFault({ feed: "redemptions", kind: "repeat-ids", at: 20, count: 3 });
    try {
      const p = await rdm(20);
      expect(p.items.map((r) => r.id)).toEqual(all.slice(17, 27).map((r) => r.id));
      expect(p.nextCursor).toBe(encodeCursor(27));
      expect((await rdm(10)).items.map((r) => r.id)).toEqual(all.slice(10, 20).map((r) => r.id));
    } finally {
      await setFault(null);
    }
    await setFault({ feed: "redemptions", kind: "time-backwards", at: 20 });
    try {
      const p = await rdm(20);
      expect(p.items.map((r) => r.id)).toEqual(all.slice(20, 30).map((r) => r.id));
      expect(Date.parse(p.items[0]!.recordedAt!)).toBe(Date.parse(all[19]!.recordedAt!) - 1000);
      expect(p.nextCursor).toBe(encodeCursor(30));
    } finally {
      await setFault(null);
    }
  });

  it("the event log's faults count offsets in the items of the filter", async () => {
    const type = "campaign.status_changed";
    const log = (await get(`/events?type=${type}&limit=1000`)).items;
    expect(log.length).toBeGreaterThanOrEqual(12);
    const p1 = await get(`/events?type=${type}&limit=4`);
    const p2 = await get(`/events?type=${type}&limit=4&after=${p1.nextCursor}`);
    await setFault({ feed: "events", kind: "cursor-loop", at: 4 });
    try {
      expect(await get(`/events?type=${type}&limit=4&after=${p1.nextCursor}`)).toEqual({
        ...p2,
        nextCursor: p1.nextCursor,
      });
      expect(await get(`/events?type=${type}&limit=4`)).toEqual(p1);
    } finally {
      await setFault(null);
    }
    await setFault({ feed: "events", kind: "time-backwards", at: 4 });
    try {
      const p = await get(`/events?type=${type}&limit=4&after=${p1.nextCursor}`);
      expect(p.items.map((e) => e.id)).toEqual(p2.items.map((e) => e.id));
      expect(Date.parse(p.items[0]!.occurredAt!)).toBe(Date.parse(p1.items[3]!.occurredAt!) - 1000);
    } finally {
      await setFault(null);
    }
  });

  it("an unknown feed fault kind is a 400", async () => {
    const r = await box.http("POST", "/faults", {
      control: true,
      body: { feed: { feed: "redemptions", kind: "sideways", at: 0 } },
    });
    expect(r.status).toBe(400);
  });
});
