// The lock that keeps two exports (or syncs) of one cursor from running at once. It is taken
// without waiting: a second run exits 9. The holder's pid is written beside the lock, so a lock left
// by a process that was killed (SIGKILL leaves no chance to release it) is taken over at once
// instead of after proper-lockfile's stale timeout.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import lockfile from "proper-lockfile";
import { LockedError } from "../errors.js";

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function ownerOf(ownerFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(ownerFile, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A held run lock. */
export interface RunLock {
  /** Throws LockedError when the lock is no longer this process's (taken over, removed): stop before writing. */
  assertHeld(): void;
  release(): Promise<void>;
}

/** Takes the run lock for `path` or throws LockedError. */
export async function takeRunLock(path: string, what: string): Promise<RunLock> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const ownerFile = `${path}.owner`;
  for (let attempt = 0; ; attempt++) {
    try {
      let lost: Error | undefined;
      const release = await lockfile.lock(path, {
        realpath: false,
        stale: 30_000,
        update: 10_000,
        retries: 0,
        onCompromised: (err) => {
          lost = err;
        },
      });
      writeFileSync(ownerFile, String(process.pid), { mode: 0o600 });
      return {
        assertHeld() {
          if (lost || ownerOf(ownerFile) !== process.pid)
            throw new LockedError(
              `${what}: this run's lock was taken by another run; stopping before writing anything more.`,
              "Run again once the other run has finished; what was saved before is kept.",
            );
        },
        async release() {
          if (!lost) await release().catch(() => {});
          if (ownerOf(ownerFile) === process.pid) rmSync(ownerFile, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
      const owner = ownerOf(ownerFile);
      if (attempt === 0 && owner !== undefined && owner !== process.pid && !processAlive(owner)) {
        // Left by a killed run: remove it only if it still names the same dead owner.
        // proper-lockfile only unlocks its own locks, so the lock directory is removed here.
        if (ownerOf(ownerFile) === owner) rmSync(`${path}.lock`, { recursive: true, force: true });
        continue;
      }
      throw new LockedError(
        `${what} is in use by another partner-cli run${owner ? ` (pid ${owner})` : ""}.`,
        "Two runs of the same cursor would write the same rows twice; wait for the other run to finish.",
      );
    }
  }
}
