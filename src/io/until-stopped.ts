// Waiting for a long-running command (sandbox start, webhooks listen) to be told to stop:
// Ctrl-C (the run's abort signal) or SIGTERM.

/** Resolves on Ctrl-C or SIGTERM. `onReady` receives a function that stops the wait from inside. */
export function untilStopped(signal: AbortSignal, onReady?: (stop: () => void) => void): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGTERM", stop);
      signal.removeEventListener("abort", stop);
      done();
    };
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    process.on("SIGTERM", stop);
    onReady?.(stop);
  });
}
