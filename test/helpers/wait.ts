// The one way a test waits: on a condition. `until` polls a probe until it holds (the poll's pause
// is the only timer a test may use to wait; test/harness/no-sleeps.test.ts checks it); engines that
// can say when they are idle (the delivery engine's quiet()) are awaited instead of polled.

/** Polls `probe` until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 15));
  }
}
