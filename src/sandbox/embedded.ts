// The embedded default: the sandbox started in-process for one command when no profile and no
// PARTNER_API_KEY exist. State persists in the data dir; a lock keeps two commands from running
// against the same data at once (the second waits; a lock whose process is gone is taken over).
// `sandbox start --data-dir` takes the same lock (without waiting), so a served sandbox and
// embedded commands never share one data dir. Time moves between commands: jobs and webhook retries
// follow the sandbox clock (domain/jobs.ts, delivery.ts) and catch up when the next command starts.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { LockedError } from "../errors.js";
import { lockedError, lockFileOf, takeLock } from "../io/file-lock.js";
import { deliveryEngine } from "./delivery.js";
import { startSandbox } from "./server.js";

/**
 * Locks a sandbox data dir (`<dir>/embedded.lock.json`, the one lock implementation of
 * src/io/file-lock.ts); `wait` waits for about two and a half minutes. Returns the release.
 */
export async function lockDataDir(dataDir: string, opts: { wait: boolean }): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = await takeLock(lockFileOf(join(dataDir, "embedded")), {
    what: `The sandbox data in ${dataDir}`,
    wait: opts.wait ? 150_000 : 0,
    refuse: (b) =>
      b.state === "alive"
        ? new LockedError(
            `The sandbox data in ${dataDir} is in use by another command or a running "sandbox start".`,
            opts.wait ? "Try again in a moment." : "Stop the other sandbox, or use another --data-dir.",
          )
        : lockedError(b, `The sandbox data in ${dataDir}`),
  });
  return () => lock.release();
}

export async function startEmbeddedSandbox(
  dataDir: string,
): Promise<{ url: string; writeKey: string; close(): Promise<void> }> {
  const release = await lockDataDir(dataDir, { wait: true });
  try {
    const sb = await startSandbox({ port: 0, dataDir, seed: "demo" });
    return {
      url: sb.url,
      writeKey: sb.writeKey,
      async close() {
        try {
          // Deliveries due now (this command's events, retries that fell due) are attempted and
          // recorded before the sandbox stops; jobs need nothing: they catch up on the next start.
          await deliveryEngine(sb.sandbox)?.settle();
          await sb.close();
        } finally {
          await release();
        }
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}
