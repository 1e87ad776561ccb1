// POST /campaigns/{id}/status: the Campaign status table, allowedStatuses, events; view-only campaigns.
import { describe, expect, it } from "vitest";
import { strictCampaigns } from "../../src/spec/campaigns.js";
import { strictEvents } from "../../src/spec/events.js";
import { expectError, strict } from "./core-util.js";
import { brandAccess, eventsOf, link, path, putCreator, setStatus } from "./campaigns-fixtures.js";
import { getCampaign, makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const box = useSandbox();

const post = (id: string, body: unknown) => box.http("POST", `/campaigns/${id}/status`, { body });

describe("status transitions", () => {
  it("draft → active → paused → active → ended, each emitting campaign.status_changed", async () => {
    const c = await makeCampaign(box.sb, { externalReference: "status-walk" });
    const seen = () =>
      eventsOf(box.sb, "campaign.status_changed").filter(
        (e) => (e.data.campaign as { id: string }).id === c.id,
      );
    expect(seen()).toHaveLength(0);
    const walk: [string, string, string[]][] = [
      ["draft", "active", ["paused", "ended"]],
      ["active", "paused", ["active", "ended"]],
      ["paused", "active", ["paused", "ended"]],
      ["active", "ended", []],
    ];
    for (const [from, to, allowed] of walk) {
      const after = await setStatus(box.sb, c.id, to);
      expect(after.status).toBe(to);
      expect(after.allowedStatuses).toEqual(allowed);
      const last = seen().at(-1)!;
      expect(last.data).toEqual({
        campaign: { id: c.id, externalReference: "status-walk", name: c.name },
        from,
        to,
      });
    }
    expect(seen()).toHaveLength(4);
    // The event parses with the shared event schema and shows up in GET /events.
    const ev = seen()[0]!;
    const page = await box.http("GET", "/events?type=campaign.status_changed&limit=1000");
    expect(page.status).toBe(200);
    const logged = page.body.items.find((e: { id: string }) => e.id === ev.id);
    expect(logged).toBeTruthy();
    strictEvents.TypedEnvelope.parse(logged);
  });

  it("draft → ended directly; paused → ended", async () => {
    const a = await makeCampaign(box.sb);
    expect((await setStatus(box.sb, a.id, "ended")).status).toBe("ended");
    const b = await makeCampaign(box.sb);
    await setStatus(box.sb, b.id, "active");
    await setStatus(box.sb, b.id, "paused");
    expect((await setStatus(box.sb, b.id, "ended")).status).toBe("ended");
  });

  it("same status → 200 unchanged, no event, updatedAt kept", async () => {
    const c = await makeCampaign(box.sb);
    const n0 = eventsOf(box.sb, "campaign.status_changed").length;
    await box.http("POST", "/advance", { control: true, body: { duration: "1m" } });
    expect(await setStatus(box.sb, c.id, "draft")).toEqual(c);
    const active = await setStatus(box.sb, c.id, "active");
    await box.http("POST", "/advance", { control: true, body: { duration: "1m" } });
    expect(await setStatus(box.sb, c.id, "active")).toEqual(active);
    await setStatus(box.sb, c.id, "ended");
    const ended = await getCampaign(box.sb, c.id);
    expect(await setStatus(box.sb, c.id, "ended")).toEqual(ended);
    expect(eventsOf(box.sb, "campaign.status_changed").length).toBe(n0 + 2);
  });

  it("transitions outside the table → 409 conflict; ended is final", async () => {
    const c = await makeCampaign(box.sb);
    expectError(await post(c.id, { status: "paused" }), 409, "conflict");
    await setStatus(box.sb, c.id, "active");
    expectError(await post(c.id, { status: "draft" }), 409, "conflict");
    await setStatus(box.sb, c.id, "ended");
    for (const s of ["active", "paused", "draft"])
      expectError(await post(c.id, { status: s }), 409, "conflict");
    expect((await getCampaign(box.sb, c.id)).status).toBe("ended");
  });

  it("invalid status values → 400", async () => {
    const c = await makeCampaign(box.sb);
    for (const b of [{ status: "archived" }, { status: "ACTIVE" }, { status: 1 }, {}, [], "active"])
      expectError(await post(c.id, b), 400, "validation_failed");
    expectError(await post(c.id, { status: "live" }), 400, "validation_failed", ["status"]);
    expect((await getCampaign(box.sb, c.id)).status).toBe("draft");
  });

  it("404 for another organization's campaign; 403 for a read-only key", async () => {
    const c = await makeCampaign(box.sb);
    expectError(
      await box.http("POST", `/campaigns/${c.id}/status`, {
        key: box.sb.testKeys.otherOrgKey,
        body: { status: "active" },
      }),
      404,
      "not_found",
    );
    expectError(
      await box.http("POST", `/campaigns/${c.id}/status`, {
        key: box.readOnlyKey,
        body: { status: "active" },
      }),
      403,
      "forbidden",
    );
  });
});

describe("view-only campaigns (brand access lost)", () => {
  it("reads work, allowedStatuses is empty, every change answers 409; restored access lifts it", async () => {
    const c = await makeCampaign(box.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 10 });
    await setStatus(box.sb, c.id, "active");
    await putCreator(box.sb, "vo-1");
    await putCreator(box.sb, "vo-2");
    await link(box.sb, c.id, "vo-1");
    const brandId = c.offer.brand.id;
    await brandAccess(box.sb, brandId, false);
    try {
      const v = await getCampaign(box.sb, c.id);
      expect(v.allowedStatuses).toEqual([]);
      expect(v.status).toBe("active");
      const list = strict(
        strictCampaigns.CampaignPage,
        await box.http("GET", `/campaigns?brandId=${brandId}`),
      );
      expect(list.items.find((x) => x.id === c.id)?.allowedStatuses).toEqual([]);
      const n0 = eventsOf(box.sb, "campaign.status_changed").length;
      for (const s of ["paused", "ended"]) expectError(await post(c.id, { status: s }), 409, "conflict");
      expectError(await box.http("PATCH", `/campaigns/${c.id}`, { body: { name: "x" } }), 409, "conflict");
      expectError(await box.http("PATCH", `/campaigns/${c.id}`, { body: {} }), 409, "conflict");
      expectError(await box.http("PATCH", `/campaigns/${c.id}`, { body: { codeLimit: 5 } }), 409, "conflict");
      expectError(await box.http("POST", path(c.id, "vo-2")), 409, "conflict");
      expectError(await box.http("POST", path(c.id, "vo-1")), 409, "conflict");
      expectError(await box.http("PATCH", path(c.id, "vo-1"), { body: { active: false } }), 409, "conflict");
      expectError(
        await box.http("POST", `/campaigns/${c.id}/assignments`, { body: { externalIds: ["vo-2"] } }),
        409,
        "conflict",
      );
      // link reads still work
      expect((await box.http("GET", path(c.id, "vo-1"))).status).toBe(200);
      expect((await box.http("GET", path(c.id))).status).toBe(200);
      // same status is not a change: 200
      expect((await post(c.id, { status: "active" })).status).toBe(200);
      expect(eventsOf(box.sb, "campaign.status_changed").length).toBe(n0);
      expect(await getCampaign(box.sb, c.id)).toEqual(v);
    } finally {
      await brandAccess(box.sb, brandId, true);
    }
    const back = await getCampaign(box.sb, c.id);
    expect(back.allowedStatuses).toEqual(["paused", "ended"]);
    expect((await setStatus(box.sb, c.id, "paused")).status).toBe("paused");
  });

  it("a view-only draft cannot be activated", async () => {
    const c = await makeCampaign(box.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 10 });
    await brandAccess(box.sb, c.offer.brand.id, false);
    try {
      expect((await getCampaign(box.sb, c.id)).allowedStatuses).toEqual([]);
      expectError(await post(c.id, { status: "active" }), 409, "conflict");
    } finally {
      await brandAccess(box.sb, c.offer.brand.id, true);
    }
  });
});
