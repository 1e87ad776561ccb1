// Events produced by the real flows (campaign status, links, simulated traffic, supply alerts) have
// the spec's data shape for their type, and each reaches a subscribed endpoint exactly once, signed.
import { expect, it } from "vitest";
import { EVENT_TYPES, strictEvents } from "../../src/spec/events.js";
import { verifySignature } from "../../src/webhooks/signature.js";
import { deliveryEngine } from "../../src/sandbox/delivery.js";
import { events } from "./traffic-util.js";
import { TRAFFIC, makeCampaign, simulate } from "../helpers/fixtures.js";
import { receiver, until } from "./webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();

it("every logged event parses strictly for its type and is delivered once with a valid signature", async () => {
  const rx = await receiver();
  try {
    const reg = await s.http("POST", "/webhooks", { body: { url: rx.url, eventTypes: [...EVENT_TYPES] } });
    expect(reg.status).toBe(201);
    const secret: string = reg.body.secret;
    const c = await makeCampaign(s.sb, { ...TRAFFIC, baseGs1: SEED.offers.oatsUnknownSupply, codeLimit: 20 });
    await simulate(s.sb, { campaign: c.id, claims: 19, redemptions: 5, exclusions: 2, restorations: 1 });
    await simulate(s.sb, { campaign: c.id, claims: 5 });
    await s.http("POST", `/campaigns/${c.id}/status`, { body: { status: "paused" } });

    const log = await events(s.sb);
    const types = new Set(log.map((e) => e.type));
    for (const t of ["campaign.status_changed", "code.issued", "redemption.recorded"])
      expect(types).toContain(t);
    for (const e of log) {
      const r = strictEvents.TypedEnvelope.safeParse(e);
      expect(r.success, `${e.type}: ${JSON.stringify(r.error?.issues)}`).toBe(true);
    }
    await rx.waitFor(log.length, 20_000);
    await deliveryEngine(s.sb.sandbox)!.quiet();
    const ids = rx.requests.map((r) => r.headers["service-event-id"]);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(log.map((e) => e.id).sort());
    const byId = new Map(log.map((e) => [e.id, e]));
    for (const r of rx.requests) {
      expect(r.json).toEqual(byId.get(r.json.id));
      const ok = verifySignature({
        header: r.headers["service-signature"] as string,
        rawBody: r.body,
        secrets: [secret],
        nowSeconds: Date.now() / 1000,
      });
      expect(ok.ok).toBe(true);
    }
    const d = await until(async () => {
      const x = (await s.http("GET", `/webhooks/${reg.body.webhook.id}`)).body;
      return x.recentDeliveries.every((y: { deliveredAt: string | null }) => y.deliveredAt) ? x : undefined;
    });
    expect(d.webhook.status).toBe("ok");
  } finally {
    await rx.close();
  }
});
