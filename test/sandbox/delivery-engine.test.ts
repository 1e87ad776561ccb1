// The delivery engine over real HTTP: headers, signatures (checked with openssl), retries on the
// sandbox clock, failure categories, endpoint status, pause/resume, delete, URL change, rotation,
// samples, ordering and persistence across a restart.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EVENT_TYPES, strictEvents } from "../../src/spec/events.js";
import { strictWebhooks } from "../../src/spec/webhooks.js";
import { DEFAULT_DELIVERY_TIMEOUT_MS, deliveryEngine, timeoutFromEnv } from "../../src/sandbox/delivery.js";
import type { OrgState } from "../../src/sandbox/store.js";
import { verifySignature } from "../../src/webhooks/signature.js";
import { http, tempDir } from "../helpers/sandbox.js";
import { opensslHmac, type Receiver, receiver, splitSignature, until } from "./webhooks-receiver.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const WAITS = [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 8 * HOUR, 24 * HOUR];

const s = useSandbox();
let org: OrgState;
let rx: Receiver;
const extra: Receiver[] = [];

beforeAll(async () => {
  const me = await s.http("GET", "/me");
  org = s.sb.sandbox.org(me.body.organization.id)!;
});
beforeEach(async () => {
  const list = await s.http("GET", "/webhooks");
  for (const w of list.body.items) await s.http("DELETE", `/webhooks/${w.id}`);
  rx = await receiver();
});
afterEach(async () => {
  await rx.close();
  for (const r of extra.splice(0)) await r.close();
});

async function register(url: string, eventTypes: string[] = ["code.issued"]) {
  const r = await s.http("POST", "/webhooks", { body: { url, eventTypes } });
  expect(r.status).toBe(201);
  return { id: r.body.webhook.id as string, secret: r.body.secret as string };
}

function emit(type = "code.issued", data: Record<string, unknown> = sampleCodeIssued()) {
  return s.sb.sandbox.emit(org, type, data);
}

function sampleCodeIssued() {
  return {
    claimId: "6f1c2d8e-1111-4222-8333-944445555666",
    campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "Spring" },
    creator: { externalId: "c/1 %ü", name: "Zoë" },
    issuedAt: s.sb.sandbox.clock.iso(),
  };
}

async function detail(id: string) {
  const r = await s.http("GET", `/webhooks/${id}`);
  expect(r.status).toBe(200);
  return strictWebhooks.WebhookDetail.parse(r.body);
}

async function advance(ms: number) {
  const r = await s.http("POST", "/advance", { control: true, body: { duration: ms } });
  expect(r.status).toBe(200);
}

/** Waits until the endpoint's newest delivery has made `n` attempts. */
async function attempts(id: string, n: number) {
  return until(async () => {
    const d = await detail(id);
    const first = d.recentDeliveries[0];
    return first && first.attempts >= n ? d : undefined;
  });
}

/** Waits until the engine has nothing due now: then "nothing (more) was sent" is a fact, not a guess. */
const quiet = () => deliveryEngine(s.sb.sandbox)!.quiet();

describe("a delivery", () => {
  it("POSTs the envelope with the spec's headers and a signature openssl agrees with", async () => {
    // Move the sandbox clock far ahead: t must still be the real wall-clock second.
    await advance(3 * 24 * HOUR);
    const { id, secret } = await register(rx.url);
    const event = emit();
    const [req] = await rx.waitFor(1);
    expect(req!.method).toBe("POST");
    expect(req!.url).toBe("/hook");
    expect(req!.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(req!.headers["user-agent"]).toBe("Service-Webhooks/1");
    expect(req!.headers["service-event-id"]).toBe(event.id);
    expect(req!.headers["service-event-type"]).toBe("code.issued");
    const sig = req!.headers["service-signature"] as string;
    expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const { t, v1 } = splitSignature(sig);
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(5);
    expect(v1).toEqual([opensslHmac(secret, t, req!.body)]);
    // The shared verifier (used by `webhooks verify` / `listen`) accepts it too.
    expect(
      verifySignature({ header: sig, rawBody: req!.body, secrets: [secret], nowSeconds: Date.now() / 1000 }),
    ).toMatchObject({ ok: true });
    // The body is the envelope as recorded in the log.
    const logged = await s.http("GET", `/events/${event.id}`);
    expect(req!.json).toEqual(logged.body);
    expect(strictEvents.TypedEnvelope.parse(req!.json)).toMatchObject({ sample: false, type: "code.issued" });

    const d = await until(async () => {
      const x = await detail(id);
      return x.recentDeliveries[0]?.deliveredAt ? x : undefined;
    });
    expect(d.recentDeliveries[0]).toMatchObject({
      eventId: event.id,
      eventType: "code.issued",
      occurredAt: event.occurredAt,
      sample: false,
      attempts: 1,
      nextAttemptAt: null,
      failedAt: null,
      lastStatusCode: 200,
      lastFailureCategory: null,
    });
    expect(d.webhook).toMatchObject({ status: "ok", failingSince: null });
    expect(d.webhook.lastDeliveredAt).not.toBeNull();
  });

  it("goes only to active endpoints subscribed to the type, of the same organization; no replay on register", async () => {
    const before = emit();
    const { id } = await register(rx.url, ["assignment.completed"]);
    const other = await receiver();
    extra.push(other);
    await s.http("POST", "/webhooks", {
      key: s.sb.testKeys.otherOrgKey,
      body: { url: other.url, eventTypes: [...EVENT_TYPES] },
    });
    emit();
    const job = emit("assignment.completed", {
      jobId: "6f1c2d8e-1111-4222-8333-944445555666",
      campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: "r", name: "S" },
      assigned: 2,
      failed: 0,
    });
    await rx.waitFor(1);
    await quiet();
    expect(rx.requests.map((r) => r.headers["service-event-id"])).toEqual([job.id]);
    expect(rx.requests.map((r) => r.headers["service-event-id"])).not.toContain(before.id);
    expect(other.requests).toHaveLength(0);
    expect((await detail(id)).recentDeliveries).toHaveLength(1);
  });

  it("fans out to every active subscribed endpoint, each with its own secret; a paused one gets nothing", async () => {
    const b = await receiver();
    const c = await receiver();
    extra.push(b, c);
    const ea = await register(rx.url);
    const eb = await register(b.url, ["redemption.recorded", "code.issued"]);
    const ec = await register(c.url);
    await s.http("PATCH", `/webhooks/${ec.id}`, { body: { active: false } });
    const event = emit();
    const [ra] = await rx.waitFor(1);
    const [rb] = await b.waitFor(1);
    for (const [r, secret] of [
      [ra!, ea.secret],
      [rb!, eb.secret],
    ] as const) {
      expect(r.headers["service-event-id"]).toBe(event.id);
      const sig = splitSignature(r.headers["service-signature"] as string);
      expect(sig.v1).toEqual([opensslHmac(secret, sig.t, r.body)]);
    }
    await quiet();
    expect(c.requests).toHaveLength(0);
    expect((await detail(ec.id)).recentDeliveries).toEqual([]);
  });

  it("runs one at a time per endpoint, in order", async () => {
    rx.fallback = { status: 200, delayMs: 60 };
    await register(rx.url);
    const ids = [emit().id, emit().id, emit().id, emit().id];
    await rx.waitFor(4);
    expect(rx.requests.map((r) => r.headers["service-event-id"])).toEqual(ids);
    expect(rx.maxConcurrent).toBe(1);
  });

  it("quiet() resolves once every delivery due now was sent and recorded", async () => {
    rx.fallback = { status: 200, delayMs: 20 };
    const { id } = await register(rx.url);
    const ids = [emit().id, emit().id, emit().id];
    await quiet();
    expect(rx.requests.map((r) => r.headers["service-event-id"])).toEqual(ids);
    const d = await detail(id);
    expect(d.recentDeliveries.map((x) => [x.eventId, x.attempts, x.deliveredAt !== null])).toEqual(
      [...ids].reverse().map((e) => [e, 1, true]),
    );
  });

  it("keeps at most 50 recentDeliveries, newest first", async () => {
    const { id } = await register(rx.url);
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) ids.push(emit().id);
    await rx.waitFor(53, 15_000);
    const d = await detail(id);
    expect(d.recentDeliveries).toHaveLength(50);
    expect(d.recentDeliveries.map((x) => x.eventId)).toEqual(ids.slice(3).reverse());
  });
});

describe("retries", () => {
  it("follow 1m, 5m, 30m, 2h, 8h, 24h on the sandbox clock; 7 attempts then failedAt", async () => {
    rx.fallback = { status: 500 };
    const { id } = await register(rx.url);
    emit();
    let d = await attempts(id, 1);
    expect(d.recentDeliveries[0]).toMatchObject({
      attempts: 1,
      lastStatusCode: 500,
      lastFailureCategory: "rejected",
      deliveredAt: null,
      failedAt: null,
    });
    expect(d.webhook.status).toBe("needs_attention");
    const failingSince = d.webhook.failingSince;
    expect(failingSince).not.toBeNull();
    for (let i = 0; i < WAITS.length; i++) {
      const last = d.recentDeliveries[0]!;
      const gap = Date.parse(last.nextAttemptAt!) - Date.parse(last.lastAttemptAt!);
      expect(Math.abs(gap - WAITS[i]!)).toBeLessThanOrEqual(1000);
      // Not due before the wait has passed...
      await advance(WAITS[i]! - 3000);
      await quiet();
      expect(rx.requests).toHaveLength(i + 1);
      // ...due once it has.
      await advance(3000);
      d = await attempts(id, i + 2);
      expect(rx.requests).toHaveLength(i + 2);
      // The same event each time; failingSince stays at the first failure of the streak.
      expect(rx.requests[i + 1]!.headers["service-event-id"]).toBe(
        rx.requests[0]!.headers["service-event-id"],
      );
      expect(d.webhook.failingSince).toBe(failingSince);
    }
    const final = d.recentDeliveries[0]!;
    expect(final).toMatchObject({ attempts: 7, nextAttemptAt: null, lastFailureCategory: "rejected" });
    expect(final.failedAt).not.toBeNull();
    await advance(72 * HOUR);
    await quiet();
    expect(rx.requests).toHaveLength(7);
    // The endpoint stays active.
    expect((await detail(id)).webhook).toMatchObject({ active: true, status: "needs_attention" });
  });

  it("a success clears failingSince, sets lastDeliveredAt and status ok", async () => {
    rx.script = [{ status: 503 }, { status: 404 }, { status: 204 }];
    const { id } = await register(rx.url);
    emit();
    let d = await attempts(id, 1);
    const since = d.webhook.failingSince;
    expect(d.webhook.status).toBe("needs_attention");
    await advance(MIN);
    d = await attempts(id, 2);
    expect(d.webhook.failingSince).toBe(since);
    expect(d.recentDeliveries[0]!.lastStatusCode).toBe(404);
    await advance(5 * MIN);
    d = await attempts(id, 3);
    expect(d.recentDeliveries[0]).toMatchObject({
      lastStatusCode: 204,
      lastFailureCategory: null,
      nextAttemptAt: null,
    });
    expect(d.recentDeliveries[0]!.deliveredAt).not.toBeNull();
    expect(d.webhook).toMatchObject({ status: "ok", failingSince: null });
    expect(d.webhook.lastDeliveredAt).not.toBeNull();
  });

  it("counts a redirect as a failure and does not follow it", async () => {
    const target = await receiver();
    extra.push(target);
    rx.script = [{ status: 302, headers: { location: target.url } }];
    const { id } = await register(rx.url);
    emit();
    const d = await attempts(id, 1);
    expect(d.recentDeliveries[0]).toMatchObject({ lastStatusCode: 302, lastFailureCategory: "redirected" });
    expect(d.recentDeliveries[0]!.nextAttemptAt).not.toBeNull();
    await quiet();
    expect(target.requests).toHaveLength(0);
  });

  it("an answer later than the timeout is timed_out (timeout shortened for the test)", async () => {
    const engine = deliveryEngine(s.sb.sandbox)!;
    engine.timeoutMs = 250;
    try {
      rx.script = [{ status: 200, delayMs: 1500 }];
      const { id } = await register(rx.url);
      emit();
      const d = await attempts(id, 1);
      expect(d.recentDeliveries[0]).toMatchObject({
        lastStatusCode: null,
        lastFailureCategory: "timed_out",
        deliveredAt: null,
      });
    } finally {
      engine.timeoutMs = DEFAULT_DELIVERY_TIMEOUT_MS;
    }
  });

  it("reads the timeout from PARTNER_SANDBOX_WEBHOOK_TIMEOUT_MS (default 10 s)", () => {
    expect(timeoutFromEnv({})).toBe(10_000);
    expect(timeoutFromEnv({ PARTNER_SANDBOX_WEBHOOK_TIMEOUT_MS: "250" })).toBe(250);
    expect(timeoutFromEnv({ PARTNER_SANDBOX_WEBHOOK_TIMEOUT_MS: "nope" })).toBe(10_000);
  });

  it("a refused or dropped connection is unreachable with no status code", async () => {
    const closed = await receiver();
    await closed.close();
    const a = await register(closed.url);
    rx.script = [{ destroy: true }];
    const b = await register(rx.url);
    emit();
    for (const id of [a.id, b.id]) {
      const d = await attempts(id, 1);
      expect(d.recentDeliveries[0]).toMatchObject({
        lastStatusCode: null,
        lastFailureCategory: "unreachable",
      });
    }
  });
});

describe("endpoint changes", () => {
  it("paused: pending deliveries wait, new events are not queued, a sample is queued; resume sends the queued ones", async () => {
    rx.script = [{ status: 500 }];
    const { id } = await register(rx.url);
    const first = emit();
    await attempts(id, 1);
    const paused = await s.http("PATCH", `/webhooks/${id}`, { body: { active: false } });
    expect(paused.body.status).toBe("paused");
    emit(); // not queued for the paused endpoint
    const sample = await s.http("POST", `/webhooks/${id}/test`, { body: { type: "campaign.supply_low" } });
    expect(sample.status).toBe(202);
    await advance(2 * HOUR);
    await quiet();
    expect(rx.requests).toHaveLength(1);
    let d = await detail(id);
    expect(d.recentDeliveries.map((x) => x.eventId)).toEqual([sample.body.id, first.id]);
    expect(d.recentDeliveries[0]).toMatchObject({ sample: true, attempts: 0, deliveredAt: null });

    await s.http("PATCH", `/webhooks/${id}`, { body: { active: true } });
    await rx.waitFor(3);
    expect(
      rx.requests
        .slice(1)
        .map((r) => r.headers["service-event-id"])
        .sort(),
    ).toEqual([first.id, sample.body.id].sort());
    d = await until(async () => {
      const x = await detail(id);
      return x.recentDeliveries.every((r) => r.deliveredAt) ? x : undefined;
    });
    expect(d.recentDeliveries).toHaveLength(2);
    expect(d.webhook.status).toBe("ok");
  });

  it("DELETE removes queued deliveries", async () => {
    rx.fallback = { status: 500 };
    const { id } = await register(rx.url);
    emit();
    await attempts(id, 1);
    expect((await s.http("DELETE", `/webhooks/${id}`)).status).toBe(204);
    await advance(2 * HOUR);
    await quiet();
    expect(rx.requests).toHaveLength(1);
  });

  it("a URL change redirects pending deliveries; an eventTypes change keeps queued ones", async () => {
    rx.fallback = { status: 500 };
    const b = await receiver();
    extra.push(b);
    const { id } = await register(rx.url);
    const event = emit();
    await attempts(id, 1);
    await s.http("PATCH", `/webhooks/${id}`, {
      body: { url: b.url, eventTypes: ["assignment.completed"] },
    });
    await advance(MIN);
    const [req] = await b.waitFor(1);
    expect(req!.headers["service-event-id"]).toBe(event.id);
    expect(rx.requests).toHaveLength(1);
    const d = await attempts(id, 2);
    expect(d.recentDeliveries[0]!.deliveredAt).not.toBeNull();
  });
});

describe("secret rotation", () => {
  it("signs with both secrets for 24 h, then only the new one; a second rotation replaces the previous", async () => {
    const { id, secret: s0 } = await register(rx.url);
    const rot1 = await s.http("POST", `/webhooks/${id}/rotate-secret`);
    const s1 = rot1.body.secret as string;
    emit();
    const [r1] = await rx.waitFor(1);
    let sig = splitSignature(r1!.headers["service-signature"] as string);
    expect(sig.v1).toEqual([opensslHmac(s1, sig.t, r1!.body), opensslHmac(s0, sig.t, r1!.body)]);

    await advance(23 * HOUR);
    emit();
    const r2 = (await rx.waitFor(2))[1]!;
    expect(splitSignature(r2.headers["service-signature"] as string).v1).toHaveLength(2);

    await advance(HOUR + 1000);
    emit();
    const r3 = (await rx.waitFor(3))[2]!;
    sig = splitSignature(r3.headers["service-signature"] as string);
    expect(sig.v1).toEqual([opensslHmac(s1, sig.t, r3.body)]);

    const rot2 = await s.http("POST", `/webhooks/${id}/rotate-secret`);
    const rot3 = await s.http("POST", `/webhooks/${id}/rotate-secret`);
    const s2 = rot2.body.secret as string;
    const s3 = rot3.body.secret as string;
    emit();
    const r4 = (await rx.waitFor(4))[3]!;
    sig = splitSignature(r4.headers["service-signature"] as string);
    expect(sig.v1).toEqual([opensslHmac(s3, sig.t, r4.body), opensslHmac(s2, sig.t, r4.body)]);
    expect(sig.v1).not.toContain(opensslHmac(s1, sig.t, r4.body));
  });
});

describe("samples", () => {
  it("are sent for an unsubscribed type, with sample true, and recorded in recentDeliveries", async () => {
    const { id, secret } = await register(rx.url, ["code.issued"]);
    const r = await s.http("POST", `/webhooks/${id}/test`, { body: { type: "assignment.completed" } });
    expect(r.status).toBe(202);
    const [req] = await rx.waitFor(1);
    expect(req!.json).toEqual(r.body);
    expect(req!.headers["service-event-type"]).toBe("assignment.completed");
    const sig = splitSignature(req!.headers["service-signature"] as string);
    expect(sig.v1).toEqual([opensslHmac(secret, sig.t, req!.body)]);
    const d = await until(async () => {
      const x = await detail(id);
      return x.recentDeliveries[0]?.deliveredAt ? x : undefined;
    });
    expect(d.recentDeliveries[0]).toMatchObject({ sample: true, eventId: r.body.id });
  });
});

describe("persistence", () => {
  it("pending deliveries survive a restart and resume", async () => {
    const dir = tempDir("pcli-wh-");
    await withSandbox({ dataDir: dir }, async (f) => {
      const a = f.sb;
      const me = await http(a, "GET", "/me");
      rx.script = [{ status: 500 }];
      const reg = await http(a, "POST", "/webhooks", { body: { url: rx.url, eventTypes: ["code.issued"] } });
      const id = reg.body.webhook.id;
      const event = a.sandbox.emit(
        a.sandbox.org(me.body.organization.id)!,
        "code.issued",
        sampleCodeIssued(),
      );
      await until(
        async () => (await http(a, "GET", `/webhooks/${id}`)).body.recentDeliveries[0]?.attempts === 1,
      );
      await f.restart();
      const b = f.sb;
      await http(b, "POST", "/advance", { control: true, body: { duration: "1m" } });
      await rx.waitFor(2);
      expect(rx.requests[1]!.headers["service-event-id"]).toBe(event.id);
      const d = await until(async () => {
        const x = (await http(b, "GET", `/webhooks/${id}`)).body;
        return x.recentDeliveries[0]?.deliveredAt ? x : undefined;
      });
      expect(d.recentDeliveries[0].attempts).toBe(2);
    });
  });
});
