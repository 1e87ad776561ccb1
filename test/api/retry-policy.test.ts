// The retry policy as a table: every retry class against every kind of outcome, plus the limits
// (attempts, deadline, longest Retry-After), the backoff's jitter bounds and Retry-After parsing.
import { describe, expect, it } from "vitest";
import {
  backoffMs,
  DEFAULT_RETRY,
  type Decision,
  decide,
  type Outcome,
  parseRetryAfter,
  type RetryClass,
  type RetrySettings,
} from "../../src/api/retry-policy.js";

const S: RetrySettings = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000, deadlineMs: 10_000 };
const mid = () => 0.5; // backoff(0) = 50 + 25 = 75 with base 100
const B0 = backoffMs(0, S, mid);

type Kind = "retry" | "recover" | "fail";
const st = (status: number, code?: string, retryAfterMs?: number): Outcome => ({
  kind: "status",
  status,
  code,
  retryAfterMs,
});

// outcome, with recovery?, expected for [read, idempotent, create], expected delay when retried
const TABLE: [string, Outcome, boolean, [Kind, Kind, Kind], number | undefined][] = [
  ["429 with Retry-After", st(429, "rate_limited", 2000), false, ["retry", "retry", "retry"], 2000],
  ["429 with Retry-After 0", st(429, "rate_limited", 0), false, ["retry", "retry", "retry"], 0],
  ["429 without Retry-After", st(429, "rate_limited"), false, ["retry", "retry", "retry"], B0],
  [
    "429 Retry-After beyond the cap",
    st(429, "rate_limited", 121_000),
    false,
    ["fail", "fail", "fail"],
    undefined,
  ],
  ["502", st(502, "clearing_network_unavailable"), false, ["retry", "retry", "retry"], B0],
  ["504", st(504), false, ["retry", "retry", "retry"], B0],
  ["503 other", st(503, "maintenance"), false, ["retry", "retry", "retry"], B0],
  ["503 not_configured", st(503, "not_configured"), false, ["fail", "fail", "fail"], undefined],
  ["503 not_configured, with recovery", st(503, "not_configured"), true, ["fail", "fail", "fail"], undefined],
  ["500 without recovery", st(500, "unexpected_error"), false, ["retry", "fail", "fail"], B0],
  ["500 with recovery", st(500, "unexpected_error"), true, ["retry", "recover", "recover"], B0],
  ["400", st(400, "validation_failed"), true, ["fail", "fail", "fail"], undefined],
  ["401", st(401, "unauthenticated"), true, ["fail", "fail", "fail"], undefined],
  ["403", st(403, "forbidden"), true, ["fail", "fail", "fail"], undefined],
  ["404", st(404, "not_found"), true, ["fail", "fail", "fail"], undefined],
  ["409", st(409, "conflict"), true, ["fail", "fail", "fail"], undefined],
  ["422 (not in the spec)", st(422), true, ["fail", "fail", "fail"], undefined],
  ["501", st(501), true, ["fail", "fail", "fail"], undefined],
  ["network, never sent", { kind: "network", sent: false }, false, ["retry", "retry", "retry"], B0],
  [
    "network, never sent, with recovery",
    { kind: "network", sent: false },
    true,
    ["retry", "retry", "retry"],
    B0,
  ],
  [
    "network after sending, without recovery",
    { kind: "network", sent: true },
    false,
    ["retry", "retry", "fail"],
    B0,
  ],
  [
    "network after sending, with recovery",
    { kind: "network", sent: true },
    true,
    ["retry", "retry", "recover"],
    B0,
  ],
];

const CLASSES: RetryClass[] = ["read", "idempotent", "create"];

describe("decide(): class × outcome", () => {
  for (const [name, outcome, hasRecovery, expected, delay] of TABLE) {
    CLASSES.forEach((cls, i) => {
      it(`${name} / ${cls} → ${expected[i]}`, () => {
        const d = decide(cls, outcome, 0, 0, S, hasRecovery, mid);
        expect(d.action).toBe(expected[i]);
        if (d.action === "retry") expect(d.delayMs).toBe(delay);
      });
    });
  }
});

describe("decide(): limits", () => {
  const retryable: Outcome[] = [st(429, "rate_limited", 500), st(502), { kind: "network", sent: false }];

  it("the last attempt fails instead of retrying", () => {
    for (const o of retryable) {
      expect(decide("read", o, S.maxAttempts - 2, 0, S, false, mid).action).toBe("retry");
      expect(decide("read", o, S.maxAttempts - 1, 0, S, false, mid)).toEqual({ action: "fail" });
    }
  });

  it("a wait that would cross the deadline fails now", () => {
    const ra = st(429, "rate_limited", 3000);
    expect(decide("read", ra, 1, 7000, S, false, mid)).toEqual({ action: "retry", delayMs: 3000 });
    expect(decide("read", ra, 1, 7001, S, false, mid)).toEqual({ action: "fail" });
    expect(decide("idempotent", st(502), 0, S.deadlineMs, S, false, mid)).toEqual({ action: "fail" });
    expect(decide("create", st(502), 0, S.deadlineMs - B0, S, false, mid)).toEqual({
      action: "retry",
      delayMs: B0,
    });
  });

  it("the cap on Retry-After is configurable", () => {
    const s = { ...S, maxRetryAfterMs: 5000 };
    expect(decide("read", st(429, undefined, 5000), 0, 0, s, false).action).toBe("retry");
    expect(decide("read", st(429, undefined, 5001), 0, 0, s, false).action).toBe("fail");
  });

  it("later attempts wait longer", () => {
    const delays = [0, 1, 2, 3].map(
      (a) => (decide("read", st(502), a, 0, S, false, mid) as Decision & { delayMs: number }).delayMs,
    );
    expect(delays).toEqual([75, 150, 300, 600]);
  });
});

describe("backoffMs: equal jitter", () => {
  it("stays within [ceiling/2, ceiling], ceiling = min(max, base·2^attempt)", () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const ceiling = Math.min(S.maxDelayMs, S.baseDelayMs * 2 ** attempt);
      expect(backoffMs(attempt, S, () => 0)).toBe(ceiling / 2);
      expect(backoffMs(attempt, S, () => 0.999999)).toBe(ceiling);
      for (let i = 0; i < 200; i++) {
        const d = backoffMs(attempt, S);
        expect(d).toBeGreaterThanOrEqual(ceiling / 2);
        expect(d).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it("is capped at maxDelayMs however many attempts", () => {
    expect(backoffMs(50, S, () => 0.999999)).toBe(S.maxDelayMs);
    expect(backoffMs(2000, S, () => 0.999999)).toBe(S.maxDelayMs);
  });

  it("spreads: random values differ across calls", () => {
    const seen = new Set(Array.from({ length: 50 }, () => backoffMs(5, S)));
    expect(seen.size).toBeGreaterThan(10);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");
  it("delay-seconds", () => {
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter("1", now)).toBe(1000);
    expect(parseRetryAfter(" 120 ", now)).toBe(120_000);
  });
  it("an HTTP date (IMF-fixdate, and the obsolete forms Date.parse reads)", () => {
    expect(parseRetryAfter("Sun, 01 Mar 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sunday, 01-Mar-26 12:01:00 GMT", now)).toBe(60_000);
    expect(
      parseRetryAfter("Sun Mar  1 12:00:05 2026", now - new Date(now).getTimezoneOffset() * 60_000),
    ).toBe(5000);
  });
  it("a date in the past means no wait", () => {
    expect(parseRetryAfter("Sun, 01 Mar 2026 11:59:00 GMT", now)).toBe(0);
  });
  it("garbage, negative and fractional values are ignored", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
  });
});
