// Cross-process locks on files (proper-lockfile): one for read-modify-write of the config store,
// and non-waiting ones for cursors (a second export exits 9 instead of waiting).
// proper-lockfile (and graceful-fs, which it patches fs with) loads on the first lock, not when the
// store is only read.
import { LockedError } from "../errors.js";

const lockfile = async () => (await import("proper-lockfile")).default;

/** Runs `fn` while holding the lock on `path`, waiting for it up to ~10 s. */
export async function withLock<T>(path: string, fn: () => Promise<T> | T): Promise<T> {
  const release = await (await lockfile()).lock(path, {
    realpath: false,
    stale: 10_000,
    retries: { retries: 200, minTimeout: 5, maxTimeout: 100, factor: 1.3, randomize: true },
  });
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** Takes the lock on `path` or throws LockedError at once. Returns the release function. */
export async function tryLock(path: string, what: string): Promise<() => Promise<void>> {
  try {
    return await (await lockfile()).lock(path, {
      realpath: false,
      stale: 15_000,
      update: 5_000,
      retries: 0,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED") {
      throw new LockedError(
        `${what} is locked by another partner-cli run.`,
        "Wait for it to finish, then run again.",
      );
    }
    throw err;
  }
}
