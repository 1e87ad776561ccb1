// The embedded default: the sandbox started in-process for one command when no profile and no
// PARTNER_API_KEY exist. State persists in the data dir; a lock keeps two commands from running
// against the same data at once (the second waits).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { LockedError } from "../errors.js";
import { startSandbox } from "./server.js";

export async function startEmbeddedSandbox(
  dataDir: string,
): Promise<{ url: string; writeKey: string; close(): Promise<void> }> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(join(dataDir, "embedded"), {
      realpath: false,
      stale: 15_000,
      update: 5_000,
      retries: { retries: 600, minTimeout: 50, maxTimeout: 250, factor: 1.2 },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED") {
      throw new LockedError(
        `The embedded sandbox in ${dataDir} is busy with another command.`,
        "Try again in a moment.",
      );
    }
    throw err;
  }
  try {
    const sb = await startSandbox({ port: 0, dataDir, seed: "demo" });
    return {
      url: sb.url,
      writeKey: sb.writeKey,
      async close() {
        try {
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
