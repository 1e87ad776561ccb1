// The retry loop: attempts a request until it succeeds or the policy (retry-policy.ts) says stop,
// waiting between attempts. Every wait and the overall deadline are read from the injected clock, so
// a test moves time instead of waiting for it.
import type { Clock } from "../clock.js";
import { CancelledError } from "../errors.js";
import { backoffMs, decide, type Outcome, type RetryClass, type RetrySettings } from "./retry-policy.js";

/** How one attempt ended: with the result, or with a failure the policy judges. */
export type AttemptResult<T> =
  | { ok: T }
  | {
      outcome: Outcome;
      /** Thrown when the loop gives up. */
      failure: Error;
      /** Returned instead of throwing `failure` when the loop gives up (the raw passthrough's answer). */
      answer?: T | undefined;
    };

export interface RetryLoop<T> {
  retry: RetryClass;
  settings: RetrySettings;
  clock: Pick<Clock, "now" | "sleep">;
  /** Aborts the waits (Ctrl-C): CancelledError. */
  signal?: AbortSignal | undefined;
  trace: (line: string) => void;
  /** Read-back after an uncertain outcome: the settled result, or "retry" to repeat the write. */
  recover?: (() => Promise<{ value: T } | "retry">) | undefined;
  /** Told before each wait (not before a repeat that a read-back allowed). */
  onRetry: (outcome: Outcome, delayMs: number) => void;
}

/** Runs `attempt` (given its 0-based number) under the retry policy. */
export async function withRetries<T>(
  attempt: (n: number) => Promise<AttemptResult<T>>,
  o: RetryLoop<T>,
): Promise<T> {
  const started = o.clock.now().getTime();
  const elapsed = () => o.clock.now().getTime() - started;
  for (let n = 0; ; n++) {
    checkAborted(o.signal);
    const r = await attempt(n);
    if ("ok" in r) return r.ok;
    const d = decide(o.retry, r.outcome, n, elapsed(), o.settings, Boolean(o.recover));
    if (d.action === "fail") {
      if (r.answer !== undefined) return r.answer;
      throw r.failure;
    }
    if (d.action === "recover") {
      o.trace(`  outcome uncertain after ${describeOutcome(r.outcome)}; reading back before any repeat`);
      const back = await o.recover!();
      if (back !== "retry") {
        o.trace("  read-back found the result; not repeating");
        return back.value;
      }
      // The read-back says the write may be repeated: within the same attempt and time budget.
      const delayMs = backoffMs(n, o.settings);
      if (n + 1 >= o.settings.maxAttempts || elapsed() + delayMs > o.settings.deadlineMs) throw r.failure;
      o.trace(`  read-back done; repeating in ${delayMs} ms`);
      await wait(o, delayMs);
      continue;
    }
    o.onRetry(r.outcome, d.delayMs);
    o.trace(`  retrying in ${d.delayMs} ms after ${describeOutcome(r.outcome)}`);
    await wait(o, d.delayMs);
  }
}

/** "HTTP 502 clearing_network_unavailable" or "a network failure", for notices and traces. */
export function describeOutcome(o: Outcome): string {
  return o.kind === "status" ? `HTTP ${o.status}${o.code ? ` ${o.code}` : ""}` : "a network failure";
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError("Interrupted.");
}

/** Sleeps between attempts on the clock; Ctrl-C ends the wait with CancelledError. */
async function wait(o: Pick<RetryLoop<unknown>, "clock" | "signal">, ms: number): Promise<void> {
  checkAborted(o.signal);
  await o.clock.sleep(ms, o.signal);
  checkAborted(o.signal);
}
