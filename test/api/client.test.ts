import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, boundsFromEnv, type ClientOptions, seg } from "../../src/api/client.js";
import type { Clock } from "../../src/clock.js";
import { maskKey as redactKey } from "../../src/config/profiles.js";
import { createCampaign, listCampaigns, setCampaignStatus } from "../../src/api/campaigns.js";
import { getCreator, listCreators, putCreator } from "../../src/api/creators.js";
import { listEvents } from "../../src/api/events.js";
import { getMe } from "../../src/api/me.js";
import { getOffer, listOffers } from "../../src/api/offers.js";
import { allItems, allPages, feedPages } from "../../src/api/paging.js";
import {
  ApiError,
  CancelledError,
  ConfigError,
  NetworkError,
  ProtocolError,
  ResponseTooLargeError,
  UsageError,
} from "../../src/errors.js";
import { exitCodeFor } from "../../src/main.js";
import type { Creator } from "../../src/spec/creators.js";
import { closedPort, type Handler, type Misbehaving, misbehaving, stream, trickle } from "./misbehave.js";
import { type CountingProxy, countingProxy } from "./proxy.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";
import { until } from "../helpers/wait.js";

const box = useSandbox();
let proxy: CountingProxy;
const P = "/api/partner/v1";

beforeAll(async () => {
  proxy = await countingProxy(box.url);
});
afterAll(async () => {
  await proxy.close();
});
afterEach(async () => {
  await box.http("DELETE", "/faults", { control: true });
  proxy.reset();
});

/** The rejection of a promise (a success fails the test), typed loosely enough for any of our errors. */
function fails(p: Promise<unknown>): Promise<ApiError> {
  return p.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e) => e as ApiError,
  );
}

async function faults(body: Record<string, unknown>): Promise<void> {
  const r = await box.http("POST", "/faults", { control: true, body });
  expect(r.status).toBe(200);
}

const clients: ApiClient[] = [];

/** A clock whose waits end at once, recording what they were asked for. */
function recordingClock(waits: number[]): Clock {
  return {
    now: () => new Date(),
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}

/** A wait that ends only when `signal` aborts. */
function untilAborted(_ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** A client through the counting proxy, with fast backoff; `lines` collects the --verbose trace. */
function mk(o: Partial<ClientOptions> & { direct?: boolean } = {}) {
  const lines: string[] = [];
  const c = new ApiClient({
    baseUrl: o.direct ? box.url : proxy.url,
    apiKey: box.writeKey,
    trace: (l) => lines.push(l),
    ...o,
    retry: { baseDelayMs: 20, maxDelayMs: 200, ...o.retry },
  });
  clients.push(c);
  return { c, lines };
}

function runCli(args: string[], env: Record<string, string> = {}) {
  return box.run(args, { env });
}

describe("429 rate_limited", () => {
  it("waits at least Retry-After (seconds), then succeeds", async () => {
    await faults({ next: ["429"], retryAfterSeconds: 1, pathPrefix: "/me" });
    const retries: number[] = [];
    const waits: number[] = [];
    const { c } = mk({ onRetry: (i) => retries.push(i.delayMs), clock: recordingClock(waits) });
    const me = await c.call({ method: "GET", path: "/me", retry: "read" });
    expect((me as { key: { canWrite: boolean } }).key.canWrite).toBe(true);
    expect(retries).toEqual([1000]);
    // The wait is the clock's: asked for the whole Retry-After.
    expect(waits).toEqual([1000]);
    expect(proxy.count("GET", `${P}/me`)).toBe(2);
  });

  it("honours Retry-After given as an HTTP date", async () => {
    // HTTP dates have whole seconds: 2 s ahead means a wait of more than 1 s and at most 2 s.
    const when = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000).toUTCString();
    proxy.inject({
      pathPrefix: `${P}/me`,
      status: 429,
      headers: { "retry-after": when, "content-type": "application/json" },
      body: JSON.stringify({ error: { code: "rate_limited", message: "Slow down." } }),
    });
    const retries: number[] = [];
    const waits: number[] = [];
    const { c } = mk({ onRetry: (i) => retries.push(i.delayMs), clock: recordingClock(waits) });
    await c.call({ method: "GET", path: "/me", retry: "read" });
    expect(retries).toHaveLength(1);
    expect(retries[0]).toBeGreaterThan(900);
    expect(retries[0]).toBeLessThanOrEqual(3000);
    expect(waits).toEqual(retries);
    expect(proxy.count("GET", `${P}/me`)).toBe(2);
  });

  it("a Retry-After longer than the deadline fails at once (exit 7), without waiting", async () => {
    await faults({ next: ["429"], retryAfterSeconds: 30, pathPrefix: "/me" });
    const r = await runCli(["me", "--verbose"], { PARTNER_RETRY_DEADLINE_MS: "2000" });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/429 rate_limited/);
    expect(r.stderr).toMatch(/try again later/);
    // One request, no wait scheduled: the 30 s Retry-After is past the 2 s deadline.
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/retrying in/);
    // The client itself never sleeps on it.
    await faults({ next: ["429"], retryAfterSeconds: 30, pathPrefix: "/me" });
    const slept: number[] = [];
    const { c } = mk({
      retry: { deadlineMs: 2000 },
      clock: { now: () => new Date(), sleep: async (ms) => void slept.push(ms) },
    });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(429);
    expect(slept).toEqual([]);
    expect(proxy.count("GET", `${P}/me`)).toBe(1);
  });
});

describe("temporary failures", () => {
  it("a 502 is retried with backoff, then succeeds", async () => {
    await faults({ next: ["502", "502"], pathPrefix: "/offers" });
    const delays: number[] = [];
    const { c, lines } = mk({ onRetry: (i) => delays.push(i.delayMs) });
    const page = await listOffers(c, {});
    expect(page.totalCount).toBe(8);
    expect(proxy.count("GET", `${P}/offers`)).toBe(3);
    // Equal jitter around base 20 ms doubling: [10, 20], then [20, 40].
    expect(delays[0]).toBeGreaterThanOrEqual(10);
    expect(delays[0]).toBeLessThanOrEqual(20);
    expect(delays[1]).toBeGreaterThanOrEqual(20);
    expect(delays[1]).toBeLessThanOrEqual(40);
    expect(
      lines.filter((l) => /retrying in \d+ ms after HTTP 502 clearing_network_unavailable/.test(l)),
    ).toHaveLength(2);
  });

  it("a 503 not_configured is not retried", async () => {
    proxy.inject({
      pathPrefix: `${P}/me`,
      status: 503,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ error: { code: "not_configured", message: "Not set up here." } }),
      times: 5,
    });
    const { c } = mk();
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.code).toBe("not_configured");
    expect(err.message).toBe("Not set up here.");
    expect(proxy.count("GET", `${P}/me`)).toBe(1);
    expect(exitCodeFor(err)).toBe(7);
  });

  it("any other 503 is retried", async () => {
    proxy.inject({ pathPrefix: `${P}/me`, status: 503, body: "", times: 1 });
    const { c } = mk();
    await c.call({ method: "GET", path: "/me", retry: "read" });
    expect(proxy.count("GET", `${P}/me`)).toBe(2);
  });

  it("a connection reset is retried for a read", async () => {
    await faults({ next: ["reset", "reset"], pathPrefix: "/offers/" });
    const { c, lines } = mk({ direct: true });
    const o = await getOffer(c, SEED.offers.oats);
    expect(o.baseGs1).toBe(SEED.offers.oats);
    expect(lines.filter((l) => /retrying in \d+ ms after a network failure/.test(l))).toHaveLength(2);
  });

  it("a reset after a create-class write was sent is not repeated blindly", async () => {
    await faults({ next: ["reset-after"], method: "PUT", pathPrefix: "/creators/" });
    const { c } = mk();
    const err = await fails(
      c.call({
        method: "PUT",
        path: `/creators/${seg("reset-create")}`,
        body: { name: "R" },
        retry: "create",
      }),
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect(exitCodeFor(err)).toBe(7);
    expect(proxy.count("PUT", `${P}/creators/`)).toBe(1);
    // The write was applied before the connection dropped: that is why it must not be repeated.
    expect((await box.http("GET", "/creators/reset-create")).status).toBe(200);
  });

  it("a refused connection is a NetworkError after retries (exit 7)", async () => {
    const c = new ApiClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "sk_test_0000",
      retry: { baseDelayMs: 5, maxAttempts: 3 },
    });
    clients.push(c);
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(exitCodeFor(err)).toBe(7);
  });
});

describe("4xx answers are never retried", () => {
  it.each([
    ["404", "GET", "/creators/no-such-creator", undefined, undefined, 404],
    ["400", "PUT", "/creators/bad-email", { name: "X", email: "not an email" }, undefined, 400],
    ["401", "GET", "/me", undefined, "sk_sandbox_not_a_key", 401],
  ] as const)("%s", async (_n, method, path, body, key, status) => {
    for (const retry of ["read", "idempotent", "create"] as const) {
      proxy.reset();
      const c = new ApiClient({
        baseUrl: proxy.url,
        apiKey: key ?? box.writeKey,
        retry: { baseDelayMs: 5 },
      });
      clients.push(c);
      const err = await fails(c.call({ method, path, body, retry }));
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(status);
      expect(proxy.seen).toHaveLength(1);
    }
  });

  it("403 for a read-only key on a write", async () => {
    const c = new ApiClient({ baseUrl: proxy.url, apiKey: box.readOnlyKey, retry: { baseDelayMs: 5 } });
    clients.push(c);
    const err = await fails(putCreator(c, "ro-write", { name: "No" }));
    expect(err.status).toBe(403);
    expect(err.code).toBe("forbidden");
    expect(proxy.seen).toHaveLength(1);
  });
});

describe("500 after the write was applied", () => {
  it("PUT /creators/{id} (idempotent) reads back, then repeats without a duplicate", async () => {
    await faults({ next: ["500"], method: "PUT", pathPrefix: "/creators/" });
    const { c, lines } = mk();
    const { creator } = await putCreator(c, "dup-check", { name: "Dana" });
    expect(creator.externalId).toBe("dup-check");
    expect(creator.name).toBe("Dana");
    expect(proxy.seen.map((l) => l.split("?")[0])).toEqual([
      `PUT ${P}/creators/dup-check`,
      `GET ${P}/creators/dup-check`,
      `PUT ${P}/creators/dup-check`,
    ]);
    expect(lines.some((l) => l.includes("reading back before any repeat"))).toBe(true);
    const all: Creator[] = [];
    for await (const x of allItems((page) => listCreators(c, { page, pageSize: 200 }))) all.push(x);
    expect(all.filter((x) => x.externalId === "dup-check")).toHaveLength(1);
  });

  it("a create-class request whose read-back finds the resource returns it without repeating", async () => {
    await faults({ next: ["500"], method: "PUT", pathPrefix: "/creators/" });
    const { c } = mk();
    const id = "made-once";
    const res = await c.send<Creator>({
      method: "PUT",
      path: `/creators/${seg(id)}`,
      body: { name: "Once" },
      retry: "create",
      recover: async () => {
        try {
          return { value: await getCreator(c, id) };
        } catch (e) {
          if (e instanceof ApiError && e.status === 404) return "retry";
          throw e;
        }
      },
    });
    expect(res.body.externalId).toBe(id);
    expect(res.body.name).toBe("Once");
    expect(proxy.count("PUT", `${P}/creators/`)).toBe(1);
    expect(proxy.count("GET", `${P}/creators/${id}`)).toBe(1);
  });

  it("a create-class 500 without a read-back fails (exit 1) after one request", async () => {
    await faults({ next: ["500"], method: "PUT", pathPrefix: "/creators/" });
    const { c } = mk();
    const err = await fails(
      c.call({ method: "PUT", path: "/creators/no-recover", body: { name: "N" }, retry: "create" }),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(500);
    expect(exitCodeFor(err)).toBe(1);
    expect(proxy.seen).toHaveLength(1);
  });

  it("read-back then repeat stops at the attempt limit when every attempt answers 500", async () => {
    await faults({ rates: { "500": 1 }, method: "PUT", pathPrefix: "/creators/" });
    const { c } = mk({ retry: { maxAttempts: 3 } });
    const err = await fails(putCreator(c, "always-500", { name: "A" }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(500);
    expect(proxy.count("PUT", `${P}/creators/`)).toBe(3);
    expect(proxy.count("GET", `${P}/creators/`)).toBe(3);
  });

  it("a 500 on a read is simply retried", async () => {
    await faults({ next: ["500"], pathPrefix: "/me" });
    const { c } = mk();
    await c.call({ method: "GET", path: "/me", retry: "read" });
    expect(proxy.count("GET", `${P}/me`)).toBe(2);
  });
});

describe("the overall deadline", () => {
  it("stops retrying 502s: exit 7 through main's table", async () => {
    await faults({ rates: { "502": 1 }, pathPrefix: "/me" });
    const r = await runCli(["me", "--verbose"], {
      PARTNER_RETRY_DEADLINE_MS: "400",
      PARTNER_RETRY_BASE_MS: "50",
    });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/502 clearing_network_unavailable/);
    // It stopped because of the deadline: the waits it scheduled fit inside the 400 ms (a timer may
    // end up to 1 ms early by the wall clock, hence 1 ms per wait), and every wait led to one request.
    const waits = [...r.stderr.matchAll(/retrying in (\d+) ms after HTTP 502/g)].map((m) => Number(m[1]));
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(400 + waits.length);
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(waits.length + 1);
  });

  it("stops retrying 429s: exit 7", async () => {
    await faults({ rates: { "429": 1 }, retryAfterSeconds: 0, pathPrefix: "/offers" });
    const r = await runCli(["offers", "list"], { PARTNER_RETRY_DEADLINE_MS: "300" });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/429 rate_limited/);
  });

  it("stops retrying resets: a NetworkError, exit 7", async () => {
    await faults({ rates: { reset: 1 }, pathPrefix: "/me" });
    const r = await runCli(["me"], { PARTNER_RETRY_DEADLINE_MS: "300" });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(
      /Could not reach http:\/\/127\.0\.0\.1:\d+ \(PARTNER_BASE_URL\) for GET \/me: connection/,
    );
  });

  it("the deadline bounds the total time, not only the number of attempts", async () => {
    await faults({ rates: { "502": 1 }, pathPrefix: "/me" });
    const { c } = mk({ retry: { deadlineMs: 250, baseDelayMs: 100, maxDelayMs: 100, maxAttempts: 100 } });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err.status).toBe(502);
    // Waits of 50-100 ms within 250 ms: a handful of attempts, far from 100.
    expect(proxy.count("GET", `${P}/me`)).toBeGreaterThanOrEqual(2);
    expect(proxy.count("GET", `${P}/me`)).toBeLessThanOrEqual(6);
  });
});

describe("timeouts", () => {
  it("a stall past headersTimeoutMs is retried, then succeeds", async () => {
    await faults({ next: ["stall"], stallMs: 3000, pathPrefix: "/me" });
    const { c, lines } = mk({ direct: true, headersTimeoutMs: 200 });
    await c.call({ method: "GET", path: "/me", retry: "read" });
    expect(lines.some((l) => l.includes("UND_ERR_HEADERS_TIMEOUT"))).toBe(true);
    expect(lines.filter((l) => l.startsWith("> GET"))).toHaveLength(2);
  });

  it("stalls on every attempt become a NetworkError", async () => {
    // undici checks the headers timeout on a coarse (about 1 s) timer: each attempt costs about
    // a second here instead of the 8 s stall.
    await faults({ rates: { stall: 1 }, stallMs: 8000, pathPrefix: "/me" });
    const { c } = mk({ direct: true, headersTimeoutMs: 150, retry: { maxAttempts: 2 } });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/UND_ERR_HEADERS_TIMEOUT/);
  });
});

describe("error bodies", () => {
  it("decodes code, message and details keyed by field path, as sent", async () => {
    const { c } = mk();
    const body = { creators: [{ externalId: "a", name: "A", active: "yes" }] };
    const raw = await box.http("POST", "/creators/batch", { body });
    const err = await fails(c.call({ method: "POST", path: "/creators/batch", body, retry: "idempotent" }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.code).toBe(raw.body.error.code);
    expect(err.message).toBe(raw.body.error.message);
    expect(err.details).toEqual(raw.body.error.details);
    expect(Object.keys(err.details ?? {})).toContain("creators.0.active");
    expect(err.method).toBe("POST");
    expect(err.path).toBe("/creators/batch");
  });

  it("a non-JSON error body still becomes an ApiError that says what came back", async () => {
    proxy.inject({
      pathPrefix: `${P}/me`,
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>",
      times: 10,
    });
    const { c } = mk({ retry: { maxAttempts: 2 } });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(502);
    expect(err.code).toBe("http_502");
    expect(err.message).toContain("not an API error: <html><body> <h1>502 Bad Gateway</h1> </body></html>");
    expect(proxy.count("GET", `${P}/me`)).toBe(2);
  });

  it("an empty 4xx body is not the API: a ConfigError (exit 4), not retried", async () => {
    proxy.inject({ pathPrefix: `${P}/me`, status: 418, body: "" });
    const { c } = mk();
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(
      /does not answer like the Partner API: GET \/me got 418 without the API's error body/,
    );
    expect(exitCodeFor(err)).toBe(4);
    expect(proxy.count("GET", `${P}/me`)).toBe(1);
  });

  it("an empty 5xx body stays an ApiError (a gateway in front of the API)", async () => {
    proxy.inject({ pathPrefix: `${P}/me`, status: 504, body: "", times: 10 });
    const { c } = mk({ retry: { maxAttempts: 2 } });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("http_504");
    expect(err.message).toMatch(/without an error body/);
    expect(exitCodeFor(err)).toBe(7);
  });

  it("a success that is not JSON is not the API: a ConfigError (exit 4)", async () => {
    proxy.inject({ pathPrefix: `${P}/me`, status: 200, body: "<html>login page</html>" });
    const { c } = mk({ baseUrlSource: "--base-url" });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(
      `${proxy.url} (--base-url) does not answer like the Partner API: GET /me got 200 with an HTML page`,
    );
    expect(err.hint).toBe("Pass the right --base-url (the part before /api/partner/v1).");
    expect(exitCodeFor(err)).toBe(4);
  });

  it("a success without a body where the API has one is not the API either", async () => {
    proxy.inject({ pathPrefix: `${P}/me`, status: 200, body: "" });
    const { c } = mk();
    const err = await fails(getMe(c));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/GET \/me got 200 without a body/);
  });

  it("JSON in the API's shape that breaks the schema stays a ProtocolError (exit 1)", async () => {
    proxy.inject({
      pathPrefix: `${P}/me`,
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ organization: { id: 5 }, key: null }),
    });
    const { c } = mk();
    const err = await fails(getMe(c));
    expect(err).toBeInstanceOf(ProtocolError);
    expect(exitCodeFor(err)).toBe(1);
  });
});

describe("tolerant parsing over HTTP", () => {
  it("an unknown field and an unknown enum value pass and are kept", async () => {
    proxy.inject({
      pathPrefix: `${P}/offers/${SEED.offers.oats}`,
      status: 200,
      headers: { "content-type": "application/json" },
      body: (o) => ({ ...(o as object), state: "archived_by_brand", loyaltyTier: { level: 2 } }),
    });
    const { c } = mk();
    const o = (await getOffer(c, SEED.offers.oats)) as unknown as Record<string, unknown>;
    expect(o.state).toBe("archived_by_brand");
    expect(o.loyaltyTier).toEqual({ level: 2 });
    expect(o.baseGs1).toBe(SEED.offers.oats);
  });

  it("a missing required field is a ProtocolError", async () => {
    proxy.inject({
      pathPrefix: `${P}/offers/${SEED.offers.oats}`,
      status: 200,
      body: (o) => ({ ...(o as object), baseGs1: undefined }),
    });
    const { c } = mk();
    const err = await fails(getOffer(c, SEED.offers.oats));
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.message).toMatch(/baseGs1/);
  });
});

describe("path segments", () => {
  const ids = [
    "a/b",
    "100%",
    "%41",
    "#tag",
    "what?x=1",
    "with space",
    "plus+sign",
    "ünïcødé ✓ 🎉",
    "..",
    ".",
    "...",
    "x/../y",
    "a;b,c=d&e",
    "back\\slash",
  ];

  it("round-trip through the sandbox's creators: PUT, GET and the list agree", async () => {
    const { c } = mk();
    for (const id of ids) {
      const { creator } = await putCreator(c, id, { name: `N ${id}` });
      expect(creator.externalId).toBe(id);
    }
    for (const id of ids) {
      const got = await getCreator(c, id);
      expect(got.externalId).toBe(id);
      expect(got.name).toBe(`N ${id}`);
    }
    const listed = new Set<string>();
    for await (const x of allItems((page) => listCreators(c, { page, pageSize: 200 })))
      listed.add(x.externalId);
    for (const id of ids) expect(listed.has(id)).toBe(true);
    // The proxy saw each id as exactly one encoded segment.
    for (const l of proxy.seen.filter((x) => x.startsWith("PUT "))) {
      expect(l.slice(`PUT ${P}/creators/`.length)).not.toMatch(/[/?#]/);
    }
  });

  it("seg encodes reserved characters and dot-only segments; an empty one is refused", () => {
    expect(seg("a/b")).toBe("a%2Fb");
    expect(seg("100%")).toBe("100%25");
    expect(seg("#?")).toBe("%23%3F");
    expect(seg("a b")).toBe("a%20b");
    expect(seg("é")).toBe("%C3%A9");
    expect(seg("..")).toBe("%2E%2E");
    expect(seg(".")).toBe("%2E");
    expect(seg(".a")).toBe(".a");
    expect(() => seg("")).toThrow(UsageError);
  });

  it("query values are encoded too", async () => {
    const { c } = mk();
    await listCreators(c, { updatedSince: "2020-01-01T00:00:00Z", active: true });
    const seen = proxy.seen[0]!;
    expect(seen).toMatch(/updatedSince=2020-01-01T00%3A00%3A00Z/);
    expect(new URL(seen.slice(4), "http://x").searchParams.get("active")).toBe("true");
  });

  it("a base URL with a path prefix keeps it", async () => {
    const c = new ApiClient({
      baseUrl: `${proxy.url}/gateway/`,
      apiKey: box.writeKey,
      retry: { maxAttempts: 1 },
    });
    clients.push(c);
    expect(c.url("/me")).toBe(`${proxy.url}/gateway${P}/me`);
    expect(() => new ApiClient({ baseUrl: "ftp://x", apiKey: "k" }).url("/me")).toThrow(UsageError);
  });
});

describe("iterators over real pages", () => {
  it("allPages/allItems walk many pages in order, once each", async () => {
    const creators = Array.from({ length: 437 }, (_, i) => ({
      externalId: `pg-${String(i).padStart(4, "0")}`,
      name: `Page ${i}`,
    }));
    const r = await box.http("POST", "/creators/batch", { body: { creators } });
    expect(r.status).toBe(200);
    const { c } = mk();
    const pages: number[] = [];
    const ids: string[] = [];
    for await (const p of allPages((page) => listCreators(c, { page, pageSize: 20 }))) {
      pages.push(p.page);
      ids.push(...p.items.map((x) => x.externalId).filter((x) => x.startsWith("pg-")));
    }
    expect(pages).toEqual(pages.map((_, i) => i));
    expect(pages.length).toBeGreaterThanOrEqual(22);
    expect(ids).toEqual(creators.map((x) => x.externalId));
    expect(proxy.count("GET", `${P}/creators?`)).toBe(pages.length);
  });

  it("a page size above 200 is clamped by the API and the iterator follows the real page size", async () => {
    const { c } = mk();
    const sizes: number[] = [];
    let n = 0;
    for await (const p of allPages((page) => listCreators(c, { page, pageSize: 1000 }))) {
      sizes.push(p.pageSize);
      n += p.items.length;
      expect(p.totalCount).toBeGreaterThanOrEqual(437);
    }
    expect(new Set(sizes)).toEqual(new Set([200]));
    expect(n).toBeGreaterThanOrEqual(437);
  });
});

describe("--verbose trace", () => {
  it("shows each request and answer with the key redacted, never the full key", async () => {
    await faults({ next: ["502"], pathPrefix: "/me" });
    const r = await runCli(["me", "--verbose"]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`> GET ${box.url}${P}/me  (authorization: Bearer ${redactKey(box.writeKey)})`);
    expect(r.stderr).toMatch(/< 502 GET \/me \(\d+ ms, \d+ bytes\)/);
    expect(r.stderr).toMatch(/retrying in \d+ ms after HTTP 502/);
    expect(r.stderr).toMatch(/< 200 GET \/me/);
    expect(r.stderr).not.toContain(box.writeKey);
    expect(r.stdout).not.toContain(box.writeKey);
    expect(redactKey(box.writeKey)).toBe(`****${box.writeKey.slice(-4)}`);
  });

  it("PARTNER_DEBUG=1 does the same; without either there is no trace", async () => {
    const on = await runCli(["me"], { PARTNER_DEBUG: "1" });
    expect(on.stderr).toContain("authorization: Bearer ****");
    expect(on.stderr).not.toContain(box.writeKey);
    const off = await runCli(["me"]);
    expect(off.stderr).not.toContain("> GET");
    expect(off.stderr).not.toContain("authorization");
  });

  it("redactKey never shows a short key", () => {
    expect(redactKey("abcd")).toBe("****");
    expect(redactKey("")).toBe("****");
    expect(redactKey("sk_live_123456789")).toBe("****6789");
  });
});

describe("Ctrl-C", () => {
  it("aborting during a retry wait ends with CancelledError (exit 130) at once", async () => {
    await faults({ next: ["429"], retryAfterSeconds: 20, pathPrefix: "/me" });
    const ac = new AbortController();
    // Ctrl-C as the wait starts; the clock's wait ends only through the signal (else: a hang).
    const { c } = mk({
      signal: ac.signal,
      onRetry: () => ac.abort(),
      clock: { now: () => new Date(), sleep: untilAborted },
    });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(CancelledError);
    expect(exitCodeFor(err)).toBe(130);
  });

  it("aborting during a stalled request ends it", async () => {
    await faults({ next: ["stall"], stallMs: 5000, pathPrefix: "/me" });
    const ac = new AbortController();
    const { c } = mk({ direct: true, signal: ac.signal });
    const p = fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    // Ctrl-C once the sandbox holds the request (its queued stall taken); unaborted, it would answer.
    await until(async () => (await box.http("GET", "/faults", { control: true })).body.next.length === 0);
    ac.abort();
    expect(await p).toBeInstanceOf(CancelledError);
  });
});

describe("keep-alive", () => {
  // undici's pool may open a second connection when the next request starts in the same tick the
  // first answer completes; after that the connections are reused.
  it("one client reuses its connections for sequential requests", async () => {
    const { c } = mk();
    for (let i = 0; i < 20; i++) await c.call({ method: "GET", path: "/me", retry: "read" });
    expect(proxy.seen).toHaveLength(20);
    expect(proxy.sockets.size).toBeLessThanOrEqual(2);
  });

  it("after a reset the client reconnects once and keeps going", async () => {
    await faults({ next: ["reset"], pathPrefix: "/me" });
    const { c } = mk();
    for (let i = 0; i < 10; i++) await c.call({ method: "GET", path: "/me", retry: "read" });
    // 11 requests reached the proxy (the reset one included) over a few connections, not 11.
    expect(proxy.seen).toHaveLength(11);
    expect(proxy.sockets.size).toBeLessThanOrEqual(3);
  });
});

describe("real create-class and feed endpoints", () => {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const campaign = (ref: string) => ({
    name: `Bench ${ref}`,
    baseGs1: SEED.offers.oats,
    dates: { from: day(1), through: day(10) },
    codeLimit: 100,
    commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
    externalReference: ref,
  });

  it("a 500 after POST /campaigns committed: found by its reference, not created twice", async () => {
    await faults({ next: ["500"], method: "POST", pathPrefix: "/campaigns" });
    const { c } = mk();
    const { campaign: made, recovered } = await createCampaign(c, campaign("create-500"));
    expect(recovered).toBe(true);
    expect(made.externalReference).toBe("create-500");
    expect(proxy.count("POST", `${P}/campaigns`)).toBe(1);
    const page = await listCampaigns(c, { externalReference: "create-500" });
    expect(page.totalCount).toBe(1);
  });

  it("a 502 before POST /campaigns was applied is simply repeated (still one campaign)", async () => {
    await faults({ next: ["502"], method: "POST", pathPrefix: "/campaigns" });
    const { c } = mk();
    const { recovered } = await createCampaign(c, campaign("create-502"));
    expect(recovered).toBe(false);
    expect(proxy.count("POST", `${P}/campaigns`)).toBe(2);
    expect((await listCampaigns(c, { externalReference: "create-502" })).totalCount).toBe(1);
  });

  it("feedPages walks GET /events page by page, each event once, in order", async () => {
    const { c } = mk();
    const { campaign: made } = await createCampaign(c, campaign("feed-events"));
    for (let i = 0; i < 6; i++) {
      await setCampaignStatus(c, made.id, "active");
      await setCampaignStatus(c, made.id, "paused");
    }
    proxy.reset();
    const pages: { after: string | undefined; n: number; next: string | null }[] = [];
    const ids: string[] = [];
    for await (const p of feedPages((after) =>
      listEvents(c, { after, limit: 5, type: "campaign.status_changed" }),
    )) {
      pages.push({ after: p.after, n: p.items.length, next: p.nextCursor });
      ids.push(...p.items.map((e) => e.id));
    }
    expect(ids.length).toBeGreaterThanOrEqual(12);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.length).toBe(Math.ceil(ids.length / 5));
    expect(pages[0]!.after).toBeUndefined();
    for (let i = 1; i < pages.length; i++) expect(pages[i]!.after).toBe(pages[i - 1]!.next);
    expect(pages.at(-1)!.next).toBeNull();
    expect(proxy.count("GET", `${P}/events?`)).toBe(pages.length);
    // Resuming from a saved cursor gives exactly the rest.
    const rest: string[] = [];
    for await (const p of feedPages(
      (after) => listEvents(c, { after, limit: 5, type: "campaign.status_changed" }),
      pages[0]!.next!,
    ))
      rest.push(...p.items.map((e) => e.id));
    expect(rest).toEqual(ids.slice(5));
  });
});

describe("bounds of one request", () => {
  const servers: Misbehaving[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });
  const serve = async (h: Handler) => {
    const s = await misbehaving(h);
    servers.push(s);
    return s;
  };
  const at = (url: string, o: Partial<ClientOptions> = {}) => {
    const c = new ApiClient({
      baseUrl: url,
      apiKey: box.writeKey,
      ...o,
      retry: { baseDelayMs: 5, ...o.retry },
    });
    clients.push(c);
    return c;
  };

  it("a trickling body ends at requestTimeoutMs: a read is retried, then a NetworkError (exit 7)", async () => {
    const s = await serve((_req, res) => {
      trickle(res, 50);
      return undefined;
    });
    const c = at(s.url, {
      requestTimeoutMs: 400,
      baseUrlSource: "PARTNER_BASE_URL",
      retry: { maxAttempts: 2 },
    });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe(
      `Could not reach ${s.url} (PARTNER_BASE_URL) for GET /me: no complete answer within 0.4 s; gave up after 2 attempts.`,
    );
    expect(err.hint).toMatch(/PARTNER_REQUEST_TIMEOUT_MS sets the limit per request \(now 0\.4 s\)/);
    expect(exitCodeFor(err)).toBe(7);
    expect(s.hits).toHaveLength(2);
  });

  it("the retry deadline bounds the whole call: attempts stop once it has passed", async () => {
    const s = await serve((_req, res) => {
      trickle(res, 50);
      return undefined;
    });
    // 300 ms per attempt, 500 ms deadline: a second attempt starts, a third never does.
    const c = at(s.url, { requestTimeoutMs: 300, retry: { deadlineMs: 500, maxAttempts: 8 } });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(s.hits).toHaveLength(2);
  });

  it("a create-class write that times out is not repeated blindly", async () => {
    const s = await serve((_req, res) => {
      trickle(res, 50);
      return undefined;
    });
    const c = at(s.url, { requestTimeoutMs: 300 });
    const err = await fails(c.call({ method: "POST", path: "/campaigns", body: {}, retry: "create" }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(s.hits).toEqual(["POST /api/partner/v1/campaigns"]);
  });

  it("Ctrl-C while a body trickles ends with CancelledError at once", async () => {
    let trickling = false;
    const s = await serve((_req, res) => {
      trickle(res, 50);
      trickling = true;
      return undefined;
    });
    const ac = new AbortController();
    const c = at(s.url, { signal: ac.signal });
    const p = fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    await until(() => trickling);
    ac.abort();
    const err = await p;
    expect(err).toBeInstanceOf(CancelledError);
    expect(exitCodeFor(err)).toBe(130);
  });

  it("a body past maxResponseBytes: ResponseTooLargeError (exit 4), one request, for every retry class", async () => {
    for (const retry of ["read", "idempotent", "create"] as const) {
      const s = await serve(async (_req, res) => {
        await stream(res, 20 * 1024 * 1024);
      });
      const c = at(s.url, { maxResponseBytes: 1024 * 1024 });
      const err = await fails(c.call({ method: "GET", path: "/me", retry }));
      expect(err).toBeInstanceOf(ResponseTooLargeError);
      expect(err.message).toContain(
        "is larger than the 1 MiB limit (stopped reading there); it was not retried.",
      );
      expect(exitCodeFor(err)).toBe(4);
      expect(s.hits).toHaveLength(1);
    }
  });

  it("an answer exactly at the cap is read", async () => {
    const body = JSON.stringify({ pad: "x".repeat(1000) });
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
      return undefined;
    });
    const c = at(s.url, { maxResponseBytes: Buffer.byteLength(body) });
    expect(await c.call({ method: "GET", path: "/x", retry: "read" })).toEqual(JSON.parse(body));
  });

  it("a redirect on every method is a ConfigError (exit 4), never followed or retried", async () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
      for (const status of [301, 302, 303, 307, 308]) {
        const s = await serve((req, res) => {
          res.writeHead(status, { location: `/moved${req.url}` });
          res.end("moved");
          return undefined;
        });
        const c = at(s.url, { baseUrlSource: 'profile "prod"' });
        const err = await fails(
          c.call({
            method,
            path: "/webhooks/x",
            retry: "idempotent",
            body: method === "GET" ? undefined : {},
          }),
        );
        expect(err).toBeInstanceOf(ConfigError);
        expect(err.message).toBe(
          `The service answered ${status} (redirect to ${s.url}/moved/api/partner/v1/webhooks/x) to ${method} /webhooks/x; nothing was followed. The base URL ${s.url} (from profile "prod") is probably wrong: the Partner API answers at its own address, without redirects.`,
        );
        expect(err.hint).toBe(
          `Store the right address in the profile: partner-cli login --profile prod --base-url URL (the part before /api/partner/v1). The redirect points to ${s.url}/moved: use that only if it is your Partner API's address.`,
        );
        expect(exitCodeFor(err)).toBe(4);
        expect(s.hits).toHaveLength(1);
      }
    }
  });

  it("a redirect without a Location says so", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(302);
      res.end();
      return undefined;
    });
    const err = await fails(at(s.url).call({ method: "DELETE", path: "/webhooks/x", retry: "idempotent" }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/answered 302 \(a redirect without a Location\) to DELETE \/webhooks\/x/);
    expect(err.hint).toBe("Check the base URL (the part before /api/partner/v1).");
  });

  it("a refused connection names the URL and its source; the hint fits the source", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const cases: [string | undefined, string][] = [
      ["PARTNER_BASE_URL", "If it is wrong: set PARTNER_BASE_URL to the right address"],
      ["--base-url", "If it is wrong: pass the right --base-url"],
      [
        'profile "ops team"',
        "If it is wrong: store the right address in the profile: partner-cli login --profile 'ops team' --base-url URL",
      ],
      [undefined, "If it is wrong: check the base URL"],
    ];
    for (const [source, hint] of cases) {
      const c = at(url, { baseUrlSource: source, retry: { maxAttempts: 1 } });
      const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toBe(
        `Could not reach ${url}${source ? ` (${source})` : ""} for GET /me: connection refused (ECONNREFUSED).`,
      );
      expect(err.hint).toContain(hint);
      if (source === "PARTNER_BASE_URL" || source === undefined) expect(err.hint).not.toContain("--base-url");
    }
  });

  it("a password in the base URL is masked in messages", async () => {
    const port = await closedPort();
    const c = at(`http://user:s3cret-pass@127.0.0.1:${port}`, { retry: { maxAttempts: 1 } });
    const err = await fails(c.call({ method: "GET", path: "/me", retry: "read" }));
    expect(err.message).toContain(`http://user:****@127.0.0.1:${port}`);
    expect(err.message).not.toContain("s3cret-pass");
  });

  it("boundsFromEnv reads whole numbers and refuses anything else", () => {
    expect(boundsFromEnv({})).toEqual({});
    expect(
      boundsFromEnv({ PARTNER_REQUEST_TIMEOUT_MS: "1500", PARTNER_MAX_RESPONSE_BYTES: "8388608" }),
    ).toEqual({
      requestTimeoutMs: 1500,
      maxResponseBytes: 8388608,
    });
    for (const bad of ["0", "-1", "1.5", "8MiB", "1e6"]) {
      expect(() => boundsFromEnv({ PARTNER_REQUEST_TIMEOUT_MS: bad })).toThrow(UsageError);
      expect(() => boundsFromEnv({ PARTNER_MAX_RESPONSE_BYTES: bad })).toThrow(UsageError);
    }
  });
});
