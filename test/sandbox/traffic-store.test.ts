// The compact traffic store: ids computed from positions and parsed back, snapshot round trip.
import { describe, expect, it } from "vitest";
import { NO_CREATOR, Traffic } from "../../src/sandbox/domain/traffic.js";
import { IdCodec } from "../../src/sandbox/domain/traffic-ids.js";
import { isoOfSec } from "../../src/sandbox/domain/redemption-render.js";

describe("traffic store", () => {
  it("maps positions to distinct UUID-shaped ids and back", () => {
    const codec = new IdCodec(IdCodec.newSalt());
    const other = new IdCodec(IdCodec.newSalt());
    const seen = new Set<string>();
    for (const i of [0, 1, 2, 999, 65_535, 1_000_000, 16_777_216, 2 ** 40 + 5]) {
      const id = codec.idOf(i);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(codec.indexOf(id)).toBe(i);
      expect(codec.indexOf(id.toUpperCase())).toBe(i);
      expect(other.indexOf(id)).toBeUndefined();
      seen.add(id);
    }
    expect(seen.size).toBe(8);
    expect(codec.indexOf("not-an-id")).toBeUndefined();
    expect(codec.idOf(1).slice(0, 8)).not.toBe(codec.idOf(2).slice(0, 8));
  });

  it("gives ids that share no suffix, as random version-4 ids would, and knows only its own", () => {
    const codec = new IdCodec(IdCodec.newSalt());
    const ids = Array.from({ length: 2000 }, (_, i) => codec.idOf(i));
    const distinct = (from: number, to: number) => new Set(ids.map((id) => id.slice(from, to))).size;
    expect(distinct(24, 36)).toBe(2000); // the last 12 hex digits
    // 3 hex digits after the version, 3 after the variant: random ones give about 1,590 of 4,096.
    expect(distinct(15, 18)).toBeGreaterThan(1400);
    expect(distinct(20, 23)).toBeGreaterThan(1400);
    expect(new Set(ids.map((id) => id[19])).size).toBe(4); // every variant digit 8, 9, a, b
    const id = ids[42]!;
    const tampered = `${id.slice(0, 35)}${id[35] === "0" ? "1" : "0"}`;
    expect(codec.indexOf(tampered)).toBeUndefined();
  });

  it("a data dir of the first id scheme (a salt without the 2: mark) keeps the ids it gave out", () => {
    // An id from a build before ids had tails of their own (salt 00112233...): the same index.
    const salt = "00112233445566778899aabbccddeeff";
    const codec = new IdCodec(salt);
    const id = codec.idOf(7);
    expect(id.slice(13)).toBe("-4001-8122-334455667788");
    expect(codec.idOf(8).slice(13)).toBe(id.slice(13)); // one tail for all, as that build gave
    expect(codec.indexOf(id)).toBe(7);
    expect(new IdCodec(`2:${salt}`).indexOf(id)).toBeUndefined();
    expect(IdCodec.newSalt()).toMatch(/^2:[0-9a-f]{32}$/);
  });

  it("formats whole-second timestamps", () => {
    expect(isoOfSec(Date.parse("2026-03-08T06:59:59Z") / 1000)).toBe("2026-03-08T06:59:59Z");
    expect(isoOfSec(Date.parse("2024-02-29T00:00:00Z") / 1000)).toBe("2024-02-29T00:00:00Z");
  });

  it("survives a JSON snapshot", () => {
    const t = new Traffic();
    const c = t.campaigns.intern("camp-1");
    const cr = t.creators.intern("cr/1 é");
    t.addView(c, cr, t.origins.intern("203.0.113.1"), 1_800_000_000);
    for (let i = 0; i < 100; i++) t.addCode(c, i % 2 ? cr : NO_CREATOR, 1_800_000_000 + i);
    for (let i = 0; i < 50; i++) t.addRedemption(i, 1_800_000_100 + i, 1_800_000_200 + i);
    t.redFlags.data[3]! |= 2;
    t.redReason.data[3] = t.reasons.intern("dup");
    t.redExcludedAt.data[3] = 1_800_001_000;
    t.supplyAlerts.set("camp-1", { low: true, exhausted: false });
    const back = Traffic.fromJSON(JSON.parse(JSON.stringify(t)));
    expect(back.redemptionIds.idOf(7)).toBe(t.redemptionIds.idOf(7));
    expect(back.redemptionCount).toBe(50);
    expect(back.codeCount).toBe(100);
    expect(back.viewCount).toBe(1);
    expect(back.countingState(3)).toBe("excluded");
    expect(back.countingState(0)).toBe("test_code");
    expect(back.countingState(1)).toBe("counted");
    expect(back.reasonOf(3)).toBe("dup");
    expect(back.reasonOf(4)).toBeNull();
    expect(back.creators.get(back.redCreator.data[1]!)).toBe("cr/1 é");
    expect(back.codeRedemption.data[60]).toBe(-1);
    expect(back.codeRedemption.data[10]).toBe(10);
    expect(back.supplyAlerts.get("camp-1")).toEqual({ low: true, exhausted: false });
    // It keeps growing after a reload.
    const code = back.addCode(c, cr, 1_800_002_000);
    back.addRedemption(code, 1_800_002_001, 1_800_002_002);
    expect(back.redemptionCount).toBe(51);
    expect(back.unredeemed(c).shopper).not.toContain(code);
  });
});

describe("feed page bytes", () => {
  it("writes exactly the JSON of the renderer, for every kind of row", async () => {
    const { FeedPageWriter } = await import("../../src/sandbox/domain/feed-writer.js");
    const { RedemptionRenderer } = await import("../../src/sandbox/domain/redemption-render.js");
    const t = new Traffic();
    const state = {
      org: { id: "o", name: "o", reportingTimeZone: "UTC", active: true, alertRecipients: [] },
      brands: new Map(),
      creators: new Map([['cr "1" é', { name: 'Zoë "Q" 名前' }]]),
      offers: new Map(),
      campaigns: { campaigns: new Map() },
    } as never;
    const c = t.campaigns.intern("missing-campaign");
    const cr = t.creators.intern('cr "1" é');
    for (let i = 0; i < 30; i++) t.addCode(c, i % 3 === 0 ? NO_CREATOR : cr, 1_800_000_000 + i * 977);
    for (let i = 0; i < 30; i++) t.addRedemption(i, 1_800_000_500 + i * 86_399, 1_800_000_600 + i * 86_399);
    t.redFlags.data[4]! |= 2;
    t.redReason.data[4] = t.reasons.intern('a "quoted" reason');
    t.redExcludedAt.data[4] = 1_800_100_000;
    t.redFlags.data[6]! |= 2;
    t.redExcludedAt.data[6] = 1_800_100_001;
    const r = new RedemptionRenderer(state, t);
    const w = new FeedPageWriter(r, t, 16);
    const expected: string[] = [];
    for (let i = 0; i < 30; i++) {
      if (i > 0) w.raw(Buffer.from(","));
      w.row(i);
      expected.push(r.json(i));
    }
    const text = w.bytes().toString("utf8");
    expect(text).toBe(expected.join(","));
    const parsed = JSON.parse(`[${text}]`);
    expect(parsed[4].exclusion).toEqual({ excludedAt: isoOfSec(1_800_100_000), reason: 'a "quoted" reason' });
    expect(parsed[6].exclusion.reason).toBeNull();
    expect(parsed[0].countingState).toBe("test_code");
    expect(parsed[1].creator).toEqual({ externalId: 'cr "1" é', name: 'Zoë "Q" 名前' });
    expect(t.redemptionIds.indexOf(parsed[17].id)).toBe(17);
  });
});
