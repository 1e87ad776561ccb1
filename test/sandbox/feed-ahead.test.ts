// Feed pages built ahead (issue 14): after serving a page, the sandbox builds the page its cursor
// points to, so that the next request is answered at once. What it serves must stay byte for byte
// the feed the spec describes: every page equals the plain render of its redemptions (the string
// renderer, not the byte writer), and a page built ahead is not served once anything changed.
import { describe, expect, it } from "vitest";
import { encodeCursor } from "../../src/sandbox/handlers/redemptions.js";
import { RedemptionRenderer } from "../../src/sandbox/domain/redemption-render.js";
import { NO_CREATOR } from "../../src/sandbox/domain/traffic.js";
import { trafficOf } from "../../src/sandbox/store.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "demo", resetEach: true });

function org() {
  const sb = s.sb.sandbox;
  const state = sb.org(sb.store.keys.get(s.writeKey)!.orgId)!;
  return { state, t: trafficOf(state) };
}

/** The page [start, start + size) rendered the plain way (one string per redemption). */
function plainPage(start: number, size: number): string {
  const { state, t } = org();
  const end = Math.min(t.redemptionCount, start + size);
  const idx = Array.from({ length: end - start }, (_, i) => start + i);
  const next = end < t.redemptionCount ? JSON.stringify(encodeCursor(end)) : "null";
  return `{"items":${new RedemptionRenderer(state, t).jsonArray(idx)},"nextCursor":${next}}`;
}

async function page(after: string | null, limit: number): Promise<string> {
  const q = `limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ""}`;
  const r = await fetch(`${s.url}/api/partner/v1/redemptions?${q}`, {
    headers: { authorization: `Bearer ${s.writeKey}` },
  });
  expect(r.status).toBe(200);
  return r.text();
}

const tick = () => new Promise((r) => setImmediate(r));

describe("feed pages built ahead", () => {
  it("every page read in order (built ahead from the second on) is the plain render, byte for byte", async () => {
    const campaign = (await makeCampaign(s.sb, FEED)).id;
    await simulate(s.sb, { campaign, claims: 560, redemptions: 530, seed: 51 });
    let after: string | null = null;
    let start = 0;
    for (;;) {
      const text = await page(after, 100);
      expect(text).toBe(plainPage(start, 100));
      after = (JSON.parse(text) as { nextCursor: string | null }).nextCursor;
      if (after === null) break;
      start += 100;
      await tick();
    }
    expect(start).toBe(500);
    // Another limit from the same cursor is not the page built ahead.
    expect(await page(encodeCursor(100), 37)).toBe(plainPage(100, 37));
  });

  it("a page built ahead is not served after a rename or new redemptions", async () => {
    const campaign = (await makeCampaign(s.sb, FEED)).id;
    await simulate(s.sb, { campaign, claims: 330, redemptions: 300, seed: 52 });
    const { t } = org();
    // A creator on the second page.
    let i = 100;
    while (t.redCreator.data[i] === NO_CREATOR) i++;
    const externalId = t.creators.get(t.redCreator.data[i]!);

    const first = await page(null, 100);
    const cursor = (JSON.parse(first) as { nextCursor: string }).nextCursor;
    await tick();
    const put = await s.http("PUT", `/creators/${encodeURIComponent(externalId)}`, {
      body: { name: "Renamed Between Pages" },
    });
    expect(put.status).toBe(200);
    const second = await page(cursor, 100);
    expect(second).toContain('"name":"Renamed Between Pages"');
    expect(second).toBe(plainPage(100, 100));

    // New redemptions: the page after it (built ahead as the last page) now has a cursor.
    const third = JSON.parse(second) as { nextCursor: string };
    await tick();
    await simulate(s.sb, { campaign, claims: 30, redemptions: 20, seed: 53 });
    const text = await page(third.nextCursor, 100);
    expect(text).toBe(plainPage(200, 100));
    expect((JSON.parse(text) as { nextCursor: string | null }).nextCursor).toBe(encodeCursor(300));
  });
});
