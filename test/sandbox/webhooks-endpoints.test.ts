// Webhook endpoint management over HTTP: registration rules, list, read, update, delete, rotation, samples.
import { beforeEach, describe, expect, it } from "vitest";
import { EVENT_TYPES, strictEvents } from "../../src/spec/events.js";
import { checkWebhookUrl, strictWebhooks } from "../../src/spec/webhooks.js";
import { http } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";

const box = useSandbox();
const strictSb = useSandbox({ strictWebhookUrls: true });

async function clearEndpoints(s = box.sb) {
  const list = await http(s, "GET", "/webhooks");
  for (const w of list.body.items) await http(s, "DELETE", `/webhooks/${w.id}`);
}
beforeEach(() => clearEndpoints());

// Nothing listens on port 9 (discard); deliveries there fail fast, which these tests do not look at.
const LOOP = "http://127.0.0.1:9/hook";

async function create(body: unknown, s = box.sb) {
  return http(s, "POST", "/webhooks", { body });
}

describe("POST /webhooks", () => {
  it("registers an endpoint: 201 {webhook, secret}, secret whsec_..., status ok", async () => {
    const r = await create({ url: "https://hooks.example.com/partner", eventTypes: ["code.issued"] });
    expect(r.status).toBe(201);
    const body = strictWebhooks.WebhookWithSecret.parse(r.body);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/);
    expect(body.webhook).toMatchObject({
      url: "https://hooks.example.com/partner",
      eventTypes: ["code.issued"],
      active: true,
      status: "ok",
      failingSince: null,
      lastDeliveredAt: null,
      previousSecretExpiresAt: null,
    });
    // The secret cannot be read again.
    const list = await box.http("GET", "/webhooks");
    expect(JSON.stringify(list.body)).not.toContain(body.secret);
    const one = await box.http("GET", `/webhooks/${body.webhook.id}`);
    expect(JSON.stringify(one.body)).not.toContain(body.secret);
  });

  it("de-duplicates eventTypes and keeps their order", async () => {
    const r = await create({
      url: "https://hooks.example.com/x",
      eventTypes: ["code.issued", "redemption.recorded", "code.issued"],
    });
    expect(r.status).toBe(201);
    expect(r.body.webhook.eventTypes).toEqual(["code.issued", "redemption.recorded"]);
  });

  it.each([
    [[], /at least one/],
    [["*"], /wildcard/],
    [["redemption.*"], /wildcard/],
    [["Code.Issued"], /case-sensitive/],
    [["code.issued", "nope.nope"], /not a supported type/],
    [[42], /only strings/],
    ["code.issued", /array/],
  ])("refuses eventTypes %j with 400", async (eventTypes, msg) => {
    const r = await create({ url: "https://hooks.example.com/x", eventTypes });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details.eventTypes.join(" ")).toMatch(msg);
  });

  it("requires url and eventTypes", async () => {
    const r = await create({});
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual({ url: ["is required"], eventTypes: ["is required"] });
    const r2 = await box.http("POST", "/webhooks", { rawBody: "[1]" });
    expect(r2.status).toBe(400);
  });

  const refused: [string, RegExp][] = [
    ["http://hooks.example.com/x", /https/],
    ["ftp://hooks.example.com/x", /https/],
    [`https://hooks.example.com/${"a".repeat(2000)}`, /2000 characters/],
    ["https://user:pw@hooks.example.com/x", /sign-in details/],
    ["https://user@hooks.example.com/x", /sign-in details/],
    ["https://hooks.example.com/x#frag", /fragment/],
    ["https://hooks.example.com/x#", /fragment/],
    ["https://10.1.2.3/x", /private/],
    ["https://172.16.0.1/x", /private/],
    ["https://172.31.255.255/x", /private/],
    ["https://192.168.1.1/x", /private/],
    ["https://169.254.169.254/latest", /link-local/],
    ["https://0.0.0.0/x", /unspecified/],
    ["https://[fc00::1]/x", /private/],
    ["https://[fd12:3456::1]/x", /private/],
    ["https://[fe80::1]/x", /link-local/],
    ["https://[::ffff:10.0.0.1]/x", /private/],
    ["https://printer.local/x", /local network/],
    ["https://db.internal/x", /local network/],
    ["https://intranet/x", /not publicly reachable/],
    ["not a url", /spaces/],
    ["/relative/path", /absolute URL/],
  ];
  it.each(refused)("refuses url %s", async (url, msg) => {
    const r = await create({ url, eventTypes: ["code.issued"] });
    expect(r.status).toBe(400);
    expect(r.body.error.details.url.join(" ")).toMatch(msg);
  });

  it("accepts exactly 2,000 characters and public hosts/addresses", async () => {
    const base = "https://hooks.example.com/";
    const url = base + "a".repeat(2000 - base.length);
    expect(url.length).toBe(2000);
    expect((await create({ url, eventTypes: ["code.issued"] })).status).toBe(201);
    expect(
      (await create({ url: "https://93.184.216.34:8443/x?y=1", eventTypes: ["code.issued"] })).status,
    ).toBe(201);
    expect((await create({ url: "https://172.32.0.1/x", eventTypes: ["code.issued"] })).status).toBe(201);
  });

  it("refuses loopback https without the sandbox's allowance (spec rule, strict mode)", async () => {
    for (const url of [
      "https://localhost/x",
      "https://127.0.0.1/x",
      "https://127.5.5.5/x",
      "https://[::1]/x",
      "http://127.0.0.1:9/hook",
      "http://localhost:9/hook",
    ]) {
      const r = await create({ url, eventTypes: ["code.issued"] }, strictSb.sb);
      expect(r.status, url).toBe(400);
      expect(r.body.error.details.url.join(" ")).toMatch(/loopback|https/);
    }
    expect(checkWebhookUrl("https://localhost/x")).toEqual([
      "must point to a publicly reachable host, not a loopback address",
    ]);
  });

  it("accepts http and https on loopback in the default sandbox", async () => {
    for (const url of ["http://127.0.0.1:9/hook", "http://localhost:9/h", "https://[::1]:9/h"]) {
      const r = await create({ url, eventTypes: ["code.issued"] });
      expect(r.status, url).toBe(201);
    }
    // But not other private addresses over http.
    expect((await create({ url: "http://10.0.0.1/x", eventTypes: ["code.issued"] })).status).toBe(400);
  });

  it("allows at most 5 endpoints, paused ones included: the sixth answers 409", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await create({ url: `https://hooks.example.com/${i}`, eventTypes: ["code.issued"] });
      expect(r.status).toBe(201);
      ids.push(r.body.webhook.id);
    }
    await box.http("PATCH", `/webhooks/${ids[0]}`, { body: { active: false } });
    const sixth = await create({ url: "https://hooks.example.com/6", eventTypes: ["code.issued"] });
    expect(sixth.status).toBe(409);
    expect(sixth.body.error.code).toBe("conflict");
    expect(sixth.body.error.message).toMatch(/at most 5/);
    await box.http("DELETE", `/webhooks/${ids[1]}`);
    expect((await create({ url: "https://hooks.example.com/7", eventTypes: ["code.issued"] })).status).toBe(
      201,
    );
  });

  it("refuses a read-only key with 403", async () => {
    const r = await box.http("POST", "/webhooks", {
      key: box.readOnlyKey,
      body: { url: "https://hooks.example.com/x", eventTypes: ["code.issued"] },
    });
    expect(r.status).toBe(403);
  });
});

describe("GET /webhooks and GET /webhooks/{id}", () => {
  it("lists unpaged with limit 5 and configured true", async () => {
    await create({ url: "https://hooks.example.com/a", eventTypes: ["code.issued"] });
    await create({ url: "https://hooks.example.com/b", eventTypes: ["code.issued"] });
    const r = await box.http("GET", "/webhooks");
    expect(r.status).toBe(200);
    const body = strictWebhooks.WebhookList.parse(r.body);
    expect(body.limit).toBe(5);
    expect(body.configured).toBe(true);
    expect(body.items.map((w) => w.url)).toEqual([
      "https://hooks.example.com/a",
      "https://hooks.example.com/b",
    ]);
  });

  it("reads one with recentDeliveries; another organization's or unknown answers 404", async () => {
    const c = await create({ url: "https://hooks.example.com/a", eventTypes: ["code.issued"] });
    const r = await box.http("GET", `/webhooks/${c.body.webhook.id}`);
    expect(strictWebhooks.WebhookDetail.parse(r.body).recentDeliveries).toEqual([]);
    const other = await box.http("GET", `/webhooks/${c.body.webhook.id}`, {
      key: box.sb.testKeys.otherOrgKey,
    });
    expect(other.status).toBe(404);
    expect((await box.http("GET", "/webhooks/00000000-0000-0000-0000-000000000000")).status).toBe(404);
    expect(
      (await box.http("DELETE", `/webhooks/${c.body.webhook.id}`, { key: box.sb.testKeys.otherOrgKey }))
        .status,
    ).toBe(404);
  });
});

describe("PATCH /webhooks/{id}", () => {
  it("changes url, eventTypes and active; omitted or null fields stay; returns the webhook", async () => {
    const c = await create({ url: "https://hooks.example.com/a", eventTypes: ["code.issued"] });
    const id = c.body.webhook.id;
    const r1 = await box.http("PATCH", `/webhooks/${id}`, {
      body: { url: "https://hooks.example.com/b", eventTypes: null },
    });
    expect(r1.status).toBe(200);
    const w1 = strictWebhooks.Webhook.parse(r1.body);
    expect(w1).toMatchObject({
      url: "https://hooks.example.com/b",
      eventTypes: ["code.issued"],
      active: true,
    });
    const r2 = await box.http("PATCH", `/webhooks/${id}`, {
      body: { eventTypes: ["assignment.completed", "assignment.completed"] },
    });
    expect(r2.body).toMatchObject({
      url: "https://hooks.example.com/b",
      eventTypes: ["assignment.completed"],
    });
    const r3 = await box.http("PATCH", `/webhooks/${id}`, { body: { active: false } });
    expect(r3.body).toMatchObject({ active: false, status: "paused" });
    const r4 = await box.http("PATCH", `/webhooks/${id}`, { body: { active: true } });
    expect(r4.body).toMatchObject({ active: true, status: "ok" });
  });

  it("refuses an empty change, bad fields, and unknown ids", async () => {
    const c = await create({ url: "https://hooks.example.com/a", eventTypes: ["code.issued"] });
    const id = c.body.webhook.id;
    for (const body of [{}, { url: null, eventTypes: null, active: null }, { other: 1 }]) {
      const r = await box.http("PATCH", `/webhooks/${id}`, { body });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/Nothing to change/);
    }
    const bad = await box.http("PATCH", `/webhooks/${id}`, {
      body: { url: "http://hooks.example.com/a", eventTypes: [], active: "yes" },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["active", "eventTypes", "url"]);
    const unchanged = await box.http("GET", `/webhooks/${id}`);
    expect(unchanged.body.webhook.url).toBe("https://hooks.example.com/a");
    expect(
      (await box.http("PATCH", "/webhooks/00000000-0000-0000-0000-000000000000", { body: { active: false } }))
        .status,
    ).toBe(404);
  });
});

describe("DELETE /webhooks/{id}", () => {
  it("answers 204 with no body, then 404", async () => {
    const c = await create({ url: "https://hooks.example.com/a", eventTypes: ["code.issued"] });
    const r = await box.http("DELETE", `/webhooks/${c.body.webhook.id}`);
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await box.http("GET", `/webhooks/${c.body.webhook.id}`)).status).toBe(404);
    expect((await box.http("DELETE", `/webhooks/${c.body.webhook.id}`)).status).toBe(404);
  });
});

describe("POST /webhooks/{id}/rotate-secret", () => {
  it("returns a new secret and previousSecretExpiresAt 24 h later on the sandbox clock", async () => {
    const c = await create({ url: "https://hooks.example.com/a", eventTypes: ["code.issued"] });
    const id = c.body.webhook.id;
    const clock = await box.http("GET", "/clock", { control: true });
    const r = await box.http("POST", `/webhooks/${id}/rotate-secret`);
    expect(r.status).toBe(200);
    const body = strictWebhooks.WebhookWithSecret.parse(r.body);
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.secret).not.toBe(c.body.secret);
    const expires = Date.parse(body.webhook.previousSecretExpiresAt!);
    const expected = Date.parse(clock.body.now) + 24 * 3_600_000;
    expect(Math.abs(expires - expected)).toBeLessThan(5000);
    expect(
      (await box.http("POST", "/webhooks/00000000-0000-0000-0000-000000000000/rotate-secret")).status,
    ).toBe(404);
  });
});

describe("POST /webhooks/{id}/test", () => {
  it.each(EVENT_TYPES)("answers 202 with a complete sample envelope of %s, not in the log", async (type) => {
    const c = await create({ url: LOOP, eventTypes: ["code.issued"] });
    const r = await box.http("POST", `/webhooks/${c.body.webhook.id}/test`, { body: { type } });
    expect(r.status).toBe(202);
    const env = strictEvents.TypedEnvelope.parse(r.body);
    expect(env).toMatchObject({ type, sample: true });
    const me = await box.http("GET", "/me");
    expect(env.organizationId).toBe(me.body.organization.id);
    expect((await box.http("GET", `/events/${env.id}`)).status).toBe(404);
    const log = await box.http("GET", "/events?limit=1000");
    expect(log.body.items.map((e: { id: string }) => e.id)).not.toContain(env.id);
  });

  it("refuses a missing or unsupported type", async () => {
    const c = await create({ url: LOOP, eventTypes: ["code.issued"] });
    const id = c.body.webhook.id;
    for (const body of [{}, { type: "code.*" }, { type: "Code.Issued" }]) {
      const r = await box.http("POST", `/webhooks/${id}/test`, { body });
      expect(r.status).toBe(400);
      expect(r.body.error.details.type).toBeDefined();
    }
  });
});
