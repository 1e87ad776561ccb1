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

/**
 * A signal that aborts on Ctrl-C (the run's signal) or SIGTERM, for a command that must stop at a
 * safe point either way; `dispose` removes the SIGTERM listener.
 */
export function stopSignal(signal: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const stop = () => ac.abort();
  if (signal.aborted) stop();
  signal.addEventListener("abort", stop, { once: true });
  process.on("SIGTERM", stop);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off("SIGTERM", stop);
      signal.removeEventListener("abort", stop);
    },
  };
}
