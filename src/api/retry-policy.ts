// The retry policy: which failures are retried for which kind of request, and how long to wait.
// Pure functions, unit-tested without a network.

/**
 * read:       GET. Everything temporary is retried, 500 included (a read has no side effects).
 * idempotent: writes whose repeat is safe by the spec (creator upsert, batch upsert, PATCH with
 *             absolute values, status change, share-link create). Temporary failures are retried;
 *             after a 500 the endpoint's read-back runs before anything is repeated.
 * create:     writes that create something each time (campaign create, assignment job, webhook
 *             register/rotate/test). Only failures that prove nothing was applied (429, 502, 503
 *             before the service answered) are retried; when the outcome is uncertain (500, a reset
 *             or timeout after the request was sent) the endpoint's recovery read decides.
 */
export type RetryClass = "read" | "idempotent" | "create";

export interface RetrySettings {
  /**
   * Give up retrying once this much time has passed since the first attempt: no attempt starts
   * after it. An attempt under way is bounded by the client's per-request deadline
   * (ClientOptions.requestTimeoutMs, body included), so a call ends within about
   * deadlineMs + one request timeout whatever the server does.
   */
  deadlineMs: number;
  /** Backoff: base * 2^attempt, capped, with full jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After we honour before giving up as "temporary". */
  maxRetryAfterMs: number;
  maxAttempts: number;
}

export const DEFAULT_RETRY: RetrySettings = {
  deadlineMs: 120_000,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 120_000,
  maxAttempts: 8,
};

/** What happened on one attempt, as far as the policy cares. */
export type Outcome =
  | { kind: "status"; status: number; code?: string | undefined; retryAfterMs?: number | undefined }
  | { kind: "network"; sent: boolean };

export type Decision = { action: "retry"; delayMs: number } | { action: "recover" } | { action: "fail" };

const HTTP_DATE_SHAPE = /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b.*\b\d{1,2}:\d{2}:\d{2}\b/i;

/** Parses Retry-After: delay-seconds or an HTTP date. Returns milliseconds, or undefined. */
export function parseRetryAfter(value: string | undefined | null, nowMs: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date names its month and has a time of day; Date.parse alone would read "1.5" or "-5"
  // as dates long past (and so as "no wait").
  if (!HTTP_DATE_SHAPE.test(v)) return undefined;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

export function backoffMs(attempt: number, s: RetrySettings, random: () => number = Math.random): number {
  const ceiling = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** attempt);
  // "Equal jitter": never zero, never above the ceiling.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function isTemporaryStatus(status: number, code: string | undefined): boolean {
  if (status === 502 || status === 504) return true;
  // 503 not_configured is a lasting state of the environment, not a blip.
  if (status === 503) return code !== "not_configured";
  return false;
}

/**
 * Decide what to do after attempt number `attempt` (0-based) failed with `outcome`.
 * `elapsedMs` is the time since the first attempt.
 */
export function decide(
  cls: RetryClass,
  outcome: Outcome,
  attempt: number,
  elapsedMs: number,
  s: RetrySettings,
  hasRecovery: boolean,
  random: () => number = Math.random,
): Decision {
  const canRetryAgain = (delay: number) => attempt + 1 < s.maxAttempts && elapsedMs + delay <= s.deadlineMs;
  const retry = (delay: number): Decision =>
    canRetryAgain(delay) ? { action: "retry", delayMs: delay } : { action: "fail" };

  if (outcome.kind === "status") {
    const { status } = outcome;
    if (status === 429) {
      const wait = outcome.retryAfterMs ?? backoffMs(attempt, s, random);
      if (wait > s.maxRetryAfterMs) return { action: "fail" };
      return retry(wait);
    }
    if (isTemporaryStatus(status, outcome.code)) return retry(backoffMs(attempt, s, random));
    if (status === 500) {
      if (cls === "read") return retry(backoffMs(attempt, s, random));
      // Outcome of a write is uncertain: read back first (never a blind repeat).
      return hasRecovery ? { action: "recover" } : { action: "fail" };
    }
    return { action: "fail" };
  }
  // Network failure.
  if (!outcome.sent || cls !== "create") {
    return retry(backoffMs(attempt, s, random));
  }
  return hasRecovery ? { action: "recover" } : { action: "fail" };
}
