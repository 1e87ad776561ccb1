// GET /redemptions feed mode and GET /redemptions/{id}.
import { beforeAll, describe, expect, it } from "vitest";
import { strictRedemptions } from "../../src/spec/redemptions.js";
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { feedAll } from "./traffic-util.js";
import { TRAFFIC, makeCampaign, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const page = async (sb: RunningSandbox, q: string) =>
  strict(strictRedemptions.RedemptionFeedPage, await http(sb, "GET", `/redemptions${q}`));

describe("redemptions feed", () => {
  const s = useSandbox();
  beforeAll(async () => {
    await makeCampaign(s.sb, { ...TRAFFIC, externalReference: "feed" });
    await simulate(s.sb, { claims: 300, redemptions: 250, testRedemptions: 0, days: 5, seed: 11 });
  });

  it("starts at the beginning and goes in recordedAt order", async () => {
    const all = await feedAll(s.sb, 100);
    expect(all).toHaveLength(250);
    for (let i = 1; i < all.length; i++) expect(all[i].recordedAt >= all[i - 1].recordedAt).toBe(true);
    expect(new Set(all.map((x) => x.id)).size).toBe(250);
    for (const x of all) {
      expect(Date.parse(x.recordedAt)).toBeGreaterThan(Date.parse(x.redeemedAt));
      expect(x.serializedGs1).toMatch(new RegExp(`^${SEED.offers.oatsUnknownSupply}\\d{10}$`));
    }
  });

  it("defaults to 100 items, refuses a limit outside 1..1000 and a non-integer limit", async () => {
    expect((await page(s.sb, "")).items).toHaveLength(100);
    expect((await page(s.sb, "?limit=1000")).items).toHaveLength(250);
    expect((await page(s.sb, "?limit=1")).items).toHaveLength(1);
    for (const bad of ["5000", "1001", "0", "-3"])
      expectError(await s.http("GET", `/redemptions?limit=${bad}`), 400, "validation_failed", ["limit"]);
    expectError(await s.http("GET", "/redemptions?limit=ten"), 400, "validation_failed", ["limit"]);
  });

  it("returns a nextCursor while more exist and null on the last page; that page repeats from its cursor", async () => {
    const p1 = await page(s.sb, "?limit=100");
    expect(p1.nextCursor).not.toBeNull();
    const p2 = await page(s.sb, `?limit=100&after=${p1.nextCursor}`);
    expect(p2.nextCursor).not.toBeNull();
    const p3 = await page(s.sb, `?limit=100&after=${p2.nextCursor}`);
    expect(p3.items).toHaveLength(50);
    expect(p3.nextCursor).toBeNull();
    expect(p2.items[0]?.id).not.toBe(p1.items[0]?.id);

    // The next run starts from the last non-null cursor (the one that fetched the last page):
    // the last page repeats, followed by anything new.
    const again = await page(s.sb, `?limit=100&after=${p2.nextCursor}`);
    expect(again.items.map((x) => x.id)).toEqual(p3.items.map((x) => x.id));
    await simulate(s.sb, { redemptions: 10, seed: 12 });
    const more = await page(s.sb, `?limit=100&after=${p2.nextCursor}`);
    expect(more.items).toHaveLength(60);
    expect(more.items.slice(0, 50).map((x) => x.id)).toEqual(p3.items.map((x) => x.id));
    expect(more.nextCursor).toBeNull();
    // A full last page also ends with null, and the cursor is opaque text.
    const full = await page(s.sb, `?limit=60&after=${p2.nextCursor}`);
    expect(full.items).toHaveLength(60);
    expect(full.nextCursor).toBeNull();
    expect(p1.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("keeps positions when a redemption is excluded", async () => {
    const before = await feedAll(s.sb, 1000);
    await simulate(s.sb, { exclude: [before[3].id, before[100].id] });
    const after = await feedAll(s.sb, 1000);
    expect(after.map((x) => x.id)).toEqual(before.map((x) => x.id));
    expect(after[3].countingState).toBe("excluded");
    expect(after[3].recordedAt).toBe(before[3].recordedAt);
  });

  it("refuses a cursor it did not issue", async () => {
    expectError(await s.http("GET", "/redemptions?after=not-a-cursor"), 400, "validation_failed", ["after"]);
    const far = Buffer.from("rdm1:999999").toString("base64url");
    expectError(await s.http("GET", `/redemptions?after=${far}`), 400, "validation_failed", ["after"]);
  });

  it("gets one redemption by id; another organization's is 404", async () => {
    const all = await feedAll(s.sb, 1000);
    const one = strict(strictRedemptions.Redemption, await s.http("GET", `/redemptions/${all[7].id}`));
    expect(one).toEqual(all[7]);
    expect((await s.http("GET", `/redemptions/${all[7].id.toUpperCase()}`)).status).toBe(200);
    expectError(
      await s.http("GET", `/redemptions/${all[7].id}`, { key: s.sb.testKeys.otherOrgKey }),
      404,
      "not_found",
    );
    expectError(await s.http("GET", "/redemptions/00000000-0000-4000-8000-000000000000"), 404, "not_found");
    // The other organization's feed is its own (empty).
    const other = await s.http("GET", "/redemptions", { key: s.sb.testKeys.otherOrgKey });
    expect(other.body).toEqual({ items: [], nextCursor: null });
  });

  it("a read-only key reads the feed", async () => {
    const r = await s.http("GET", "/redemptions?limit=1", { key: s.readOnlyKey });
    expect(r.status).toBe(200);
  });
});
