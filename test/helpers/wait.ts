// The one way a test waits: on a condition. `until` polls a probe until it holds (the poll's pause
// is the only timer a test may use to wait; test/harness/no-sleeps.test.ts checks it); engines that
// can say when they are idle (the delivery engine's quiet()) are awaited instead of polled.

/**
 * Polls `probe` every `everyMs` until it returns a value other than undefined/false; fails after
 * `timeoutMs`.
 */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
  what = "condition",
  everyMs = 15,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, everyMs));
  }
}

/**
 * A random moment within `maxMs`, for tests that interrupt a run at random points on purpose (kill
 * tests): the randomness is what they test, not a wait for something to happen.
 */
export function randomMoment(maxMs: number): Promise<void> {
  return new Promise((res) => setTimeout(res, Math.floor(Math.random() * maxMs)));
}
