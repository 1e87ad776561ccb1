// A burst of events reaches an endpoint in order, one at a time, in reasonable time.
import { expect, it } from "vitest";
import { receiver } from "./webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });

it("delivers a burst of 300 events in order, one at a time", async () => {
  const rx = await receiver();
  try {
    const me = await s.http("GET", "/me");
    const org = s.sb.sandbox.org(me.body.organization.id)!;
    const reg = await s.http("POST", "/webhooks", { body: { url: rx.url, eventTypes: ["code.issued"] } });
    expect(reg.status).toBe(201);
    const ids: string[] = [];
    const data = {
      claimId: "6f1c2d8e-1111-4222-8333-944445555666",
      campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" },
      creator: { externalId: "c1", name: "C" },
      issuedAt: s.sb.sandbox.clock.iso(),
    };
    for (let i = 0; i < 300; i++) ids.push(s.sb.sandbox.emit(org, "code.issued", data).id);
    await rx.waitFor(300, 30_000);
    expect(rx.requests.map((r) => r.headers["service-event-id"])).toEqual(ids);
    expect(rx.maxConcurrent).toBe(1);
    const d = await s.http("GET", `/webhooks/${reg.body.webhook.id}`);
    expect(d.body.recentDeliveries).toHaveLength(50);
  } finally {
    await rx.close();
  }
});
