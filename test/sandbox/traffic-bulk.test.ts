// Bulk generation: one million redemptions through the compact path (events: false, no per-item
// events), readable through the feed, counted in range mode and reports, and stored compactly. Timings are
// printed, not asserted (the CPU is shared).
import { beforeAll, describe, expect, it } from "vitest";
import { dbFile } from "./core-util.js";
import { strictRedemptions } from "../../src/spec/redemptions.js";
import { tempDir } from "../helpers/sandbox.js";
import { strict } from "./core-util.js";
import { events } from "./traffic-util.js";
import { TRAFFIC, makeCampaign, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const MILLION = 1_000_000;

describe("a million redemptions", () => {
  const dir = tempDir("h7-bulk-");
  const box = useSandbox({ dataDir: dir });
  let id: string;
  beforeAll(async () => {
    id = (await makeCampaign(box.sb, { ...TRAFFIC, codeLimit: 2_000_000, externalReference: "bulk" })).id;
  });

  it("generates them without a million events", async () => {
    const t0 = performance.now();
    const r = await simulate(box.sb, {
      campaign: "bulk",
      claims: MILLION,
      redemptions: MILLION,
      days: 3,
      seed: 42,
      // The bulk path: rows only (the event log is then marked incomplete).
      events: false,
    });
    const ms = performance.now() - t0;
    console.log(`[bulk] 1,000,000 claims + redemptions generated in ${(ms / 1000).toFixed(1)} s`);
    expect(r).toMatchObject({ claims: MILLION, redemptions: MILLION, itemEvents: false });
    const log = await events(box.sb);
    expect(log.filter((e) => e.type !== "campaign.status_changed")).toHaveLength(0);
    const c = await box.http("GET", `/campaigns/${id}`);
    expect(c.body.codes).toMatchObject({ issued: MILLION, redeemed: MILLION });
  });

  it("serves them through the feed and range mode", async () => {
    const t0 = performance.now();
    let after: string | null = null;
    let n = 0;
    let last = "";
    for (let p = 0; p < 20; p++) {
      const res = await box.http("GET", `/redemptions?limit=1000${after ? `&after=${after}` : ""}`);
      const page = strictRedemptions.RedemptionFeedPage.parse(res.body);
      n += page.items.length;
      for (const x of page.items) {
        expect(x.recordedAt >= last).toBe(true);
        last = x.recordedAt;
      }
      after = page.nextCursor;
    }
    const ms = performance.now() - t0;
    console.log(
      `[bulk] 20 feed pages of 1,000 (fetch + parse in the same process): ${(ms / 20).toFixed(1)} ms/page`,
    );
    expect(n).toBe(20_000);
    // The server side alone: raw page bytes, no parsing.
    const t3 = performance.now();
    let cursor: string | null = null;
    for (let p = 0; p < 50; p++) {
      const res = await fetch(
        `${box.url}/api/partner/v1/redemptions?limit=1000${cursor ? `&after=${cursor}` : ""}`,
        {
          headers: { authorization: `Bearer ${box.writeKey}` },
        },
      );
      const text = await res.text();
      cursor = /"nextCursor":"([^"]+)"/.exec(text)?.[1] ?? null;
    }
    console.log(`[bulk] 50 raw feed pages of 1,000: ${((performance.now() - t3) / 50).toFixed(1)} ms/page`);
    expect(after).not.toBeNull();
    const t1 = performance.now();
    const range = strict(
      strictRedemptions.RedemptionRangePage,
      await box.http("GET", "/redemptions?preset=7d&pageSize=200"),
    );
    console.log(`[bulk] first range page over 1M: ${(performance.now() - t1).toFixed(0)} ms`);
    expect(range.totalCount).toBe(MILLION);
    const t2 = performance.now();
    const s = await box.http("GET", "/reports/summary?preset=7d");
    console.log(`[bulk] summary over 1M: ${(performance.now() - t2).toFixed(0)} ms`);
    expect(s.body.totals.verifiedRedemptions).toBe(MILLION);
    expect(s.body.totals.estimatedCommission).toBe(250_000);
  });

  it("is stored compactly and reloads", async () => {
    const { statSync, existsSync } = await import("node:fs");
    const wal = `${dbFile(dir)}-wal`;
    const bytes = statSync(dbFile(dir)).size + (existsSync(wal) ? statSync(wal).size : 0);
    console.log(`[bulk] database with 1M redemptions: ${(bytes / 1e6).toFixed(1)} MB`);
    expect(bytes).toBeLessThan(200e6);
    await box.restart();
    const first = await box.http("GET", "/redemptions?limit=1");
    const again = await box.http("GET", `/redemptions/${first.body.items[0].id}`);
    expect(again.body).toEqual(first.body.items[0]);
    const range = await box.http("GET", "/redemptions?preset=7d&pageSize=1");
    expect(range.body.totalCount).toBe(MILLION);
  });
});
