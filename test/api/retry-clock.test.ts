// The retry loop keeps time by the injected clock: its waits and its overall deadline, and the
// Retry-After dates it reads. These tests move a fake clock instead of waiting (each wait returns at
// once and advances the clock by its length), so they take no longer than the requests themselves.
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { ApiClient, type ClientOptions } from "../../src/api/client.js";
import type { Clock } from "../../src/clock.js";
import { ApiError } from "../../src/errors.js";
import { useSandbox } from "../helpers/harness.js";
import { type CountingProxy, countingProxy } from "./proxy.js";

const box = useSandbox();
const P = "/api/partner/v1";
let proxy: CountingProxy;
const clients: ApiClient[] = [];

beforeAll(async () => {
  proxy = await countingProxy(box.url);
});
afterEach(async () => {
  await box.http("DELETE", "/faults", { control: true });
  proxy.reset();
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await proxy.close();
});

/** A clock far from the machine's, moved only by the waits asked of it (which return at once). */
function movingClock(startMs = Date.parse("2031-05-06T07:08:09Z")) {
  let t = startMs;
  const waits: number[] = [];
  const clock: Clock = {
    now: () => new Date(t),
    sleep: async (ms) => {
      waits.push(ms);
      t += ms;
    },
  };
  return { clock, waits, startMs };
}

function client(clock: Clock, retry: ClientOptions["retry"]) {
  const c = new ApiClient({ baseUrl: proxy.url, apiKey: box.writeKey, clock, retry });
  clients.push(c);
  return c;
}

it("the overall deadline is measured on the injected clock: long waits end the retries without real waiting", async () => {
  await box.http("POST", "/faults", { control: true, body: { rates: { "502": 1 }, pathPrefix: "/me" } });
  const { clock, waits } = movingClock();
  // Waits of 5 to 10 s within a 60 s deadline: at most 12 of them, far from the 50 attempts allowed.
  const c = client(clock, { deadlineMs: 60_000, baseDelayMs: 10_000, maxDelayMs: 10_000, maxAttempts: 50 });
  const err = await c.call({ method: "GET", path: "/me", retry: "read" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(502);
  expect(waits.length).toBeGreaterThanOrEqual(5);
  expect(waits.length).toBeLessThanOrEqual(12);
  expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60_000);
  expect(proxy.count("GET", `${P}/me`)).toBe(waits.length + 1);
});

it("a Retry-After date is read against the injected clock", async () => {
  const { clock, waits, startMs } = movingClock();
  proxy.inject({
    pathPrefix: `${P}/me`,
    status: 429,
    headers: { "retry-after": new Date(startMs + 7000).toUTCString(), "content-type": "application/json" },
    body: JSON.stringify({ error: { code: "rate_limited", message: "Slow down." } }),
  });
  const c = client(clock, {});
  const me = await c.call({ method: "GET", path: "/me", retry: "read" });
  expect(me).toHaveProperty("key");
  expect(waits).toEqual([7000]);
  expect(proxy.count("GET", `${P}/me`)).toBe(2);
});
