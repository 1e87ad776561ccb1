// Fault injection through POST /_sandbox/faults: every kind, the queue, filters, rates and rate limit.
import { afterEach, describe, expect, it } from "vitest";
import { strictCreators } from "../../src/spec/creators.js";
import { strictMe } from "../../src/spec/me.js";
import { http } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });
afterEach(async () => {
  expect((await s.http("DELETE", "/faults", { control: true })).status).toBe(200);
});

const faults = (body: unknown) => s.http("POST", "/faults", { control: true, body });
const put = (id: string, name: string) => s.http("PUT", `/creators/${id}`, { body: { name } });
const get = (id: string) => s.http("GET", `/creators/${id}`);

/** A request whose connection is dropped: resolves with the error instead of a response. */
async function dropped(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the connection to be dropped");
}

describe("faults", () => {
  it("latency is added to every API request", async () => {
    await faults({ latencyMs: 600 });
    const t = Date.now();
    strict(strictMe.Me, await s.http("GET", "/me"));
    expect(Date.now() - t).toBeGreaterThanOrEqual(590);
    // Control routes are never delayed or faulted: with an hour of latency, one still answers.
    await faults({ latencyMs: 3_600_000 });
    expect((await s.http("GET", "/clock", { control: true })).status).toBe(200);
  });
  it("429 rate_limited with Retry-After", async () => {
    await faults({ next: ["429"], retryAfterSeconds: 3 });
    const res = await s.http("GET", "/me");
    expectError(res, 429, "rate_limited");
    expect(res.headers.get("retry-after")).toBe("3");
    strict(strictMe.Me, await s.http("GET", "/me"));
  });
  it("502 clearing_network_unavailable, and the write is not applied", async () => {
    await faults({ next: ["502"] });
    expectError(await put("f-502", "X"), 502, "clearing_network_unavailable");
    expectError(await get("f-502"), 404, "not_found");
  });
  it("500 unexpected_error after the write was applied", async () => {
    await faults({ next: ["500"] });
    expectError(await put("f-500", "Written"), 500, "unexpected_error");
    expect(strict(strictCreators.Creator, await get("f-500")).name).toBe("Written");
    await faults({ next: ["500"] });
    expectError(
      await s.http("POST", "/creators/batch", {
        body: { creators: [{ externalId: "f-500b", name: "B" }] },
      }),
      500,
      "unexpected_error",
    );
    expect(strict(strictCreators.Creator, await get("f-500b")).name).toBe("B");
  });
  it("reset drops the connection before the write", async () => {
    await faults({ next: ["reset"] });
    await dropped(put("f-reset", "X"));
    expectError(await get("f-reset"), 404, "not_found");
  });
  it("reset-after drops the connection after the write", async () => {
    await faults({ next: ["reset-after"] });
    await dropped(put("f-reset-after", "Applied"));
    expect(strict(strictCreators.Creator, await get("f-reset-after")).name).toBe("Applied");
  });
  it("stall holds the request for stallMs, then drops it", async () => {
    await faults({ next: ["stall"], stallMs: 300 });
    const t = Date.now();
    await dropped(put("f-stall", "X"));
    expect(Date.now() - t).toBeGreaterThanOrEqual(280);
    expectError(await get("f-stall"), 404, "not_found");
  });
  it("the next queue is consumed in order, then requests succeed", async () => {
    const cfg = (await faults({ next: ["502", "429", "500"] })).body;
    expect(cfg.next).toEqual(["502", "429", "500"]);
    expect((await s.http("GET", "/me")).status).toBe(502);
    expect((await s.http("GET", "/me")).status).toBe(429);
    expect((await s.http("GET", "/me")).status).toBe(500);
    expect((await s.http("GET", "/me")).status).toBe(200);
    expect((await s.http("GET", "/faults", { control: true })).body.next).toEqual([]);
  });
  it("pathPrefix limits faults to matching paths (below /api/partner/v1)", async () => {
    await faults({ next: ["502"], pathPrefix: "/creators" });
    expect((await s.http("GET", "/me")).status).toBe(200);
    expect((await s.http("GET", "/offers")).status).toBe(200);
    expect((await s.http("GET", "/creators")).status).toBe(502);
    expect((await s.http("GET", "/creators")).status).toBe(200);
  });
  it("method limits faults to one HTTP method (any case)", async () => {
    const cfg = (await faults({ next: ["502"], method: "put" })).body;
    expect(cfg.method).toBe("PUT");
    expect((await s.http("GET", "/creators")).status).toBe(200);
    expectError(await put("f-method", "X"), 502, "clearing_network_unavailable");
    expect((await put("f-method", "X")).status).toBe(201);
  });
  it("omitted fields keep their value; null clears a filter", async () => {
    await faults({ pathPrefix: "/offers", method: "GET" });
    let cfg = (await faults({ latencyMs: 0 })).body;
    expect([cfg.pathPrefix, cfg.method]).toEqual(["/offers", "GET"]);
    cfg = (await faults({ pathPrefix: null, method: null })).body;
    expect(cfg.pathPrefix).toBeUndefined();
    expect(cfg.method).toBeUndefined();
  });
  it("rates: probability 1 always faults, 0 never", async () => {
    await faults({ rates: { "502": 1 } });
    for (let i = 0; i < 3; i++) expect((await s.http("GET", "/me")).status).toBe(502);
    await faults({ rates: { "502": 0 } });
    for (let i = 0; i < 3; i++) expect((await s.http("GET", "/me")).status).toBe(200);
  });
  it("rate limit: requests per second per key beyond the limit answer 429 with Retry-After", async () => {
    await faults({ rateLimit: 3 });
    const t0 = Date.now();
    const res = await Promise.all(Array.from({ length: 12 }, () => s.http("GET", "/me")));
    const seconds = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
    const limited = res.filter((r) => r.status === 429);
    // At most 3 pass in each one-second window touched.
    expect(res.length - limited.length).toBeLessThanOrEqual(3 * seconds);
    expect(limited.length).toBeGreaterThan(0);
    expectError(limited[0]!, 429, "rate_limited");
    expect(limited[0]!.headers.get("retry-after")).toMatch(/^\d+$/);
    // Another key has its own budget.
    expect((await s.http("GET", "/me", { key: s.sb.testKeys.readOnlyKey })).status).toBe(200);
  });
  it("DELETE /_sandbox/faults clears everything", async () => {
    await faults({ latencyMs: 10, rates: { "429": 0.5 }, next: ["502"], pathPrefix: "/x", rateLimit: 5 });
    const cfg = (await s.http("DELETE", "/faults", { control: true })).body;
    expect(cfg).toMatchObject({ latencyMs: 0, rates: {}, next: [], rateLimit: 0 });
    expect(cfg.pathPrefix).toBeUndefined();
  });
  it("bad fault settings are 400", async () => {
    expectError(await faults({ next: ["boom"] }), 400, "validation_failed");
    expectError(await faults({ rates: { "502": 2 } }), 400, "validation_failed");
    expectError(await faults({ latencyMs: -1 }), 400, "validation_failed", ["latencyMs"]);
    expectError(await faults({ unknown: 1 }), 400, "validation_failed");
  });
  it("start-up faults come back after DELETE", async () => {
    await withSandbox({ seed: "empty", faults: { latencyMs: 5, rateLimit: 100 } }, async ({ sb: other }) => {
      await http(other, "POST", "/faults", { control: true, body: { latencyMs: 0, next: ["502"] } });
      const cfg = (await http(other, "DELETE", "/faults", { control: true })).body;
      expect(cfg).toMatchObject({ latencyMs: 5, rateLimit: 100, next: [] });
    });
  });
});
