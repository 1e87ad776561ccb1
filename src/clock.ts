// The clock: the time and the one way partner-cli waits. The Context carries one (tests pass a fake);
// code without a Context (a lock's retry loop, a database driver's retry) uses systemClock.
export interface Clock {
  now(): Date;
  /** Waits `ms`; ends early (resolving, not rejecting) when `signal` aborts. Keeps nothing alive after. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
      signal?.addEventListener("abort", done, { once: true });
    }),
};
