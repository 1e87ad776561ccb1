// The run lock: keeps two exports (or syncs) of one cursor or output file from running at once. It
// is taken without waiting: a second run exits 9. One lock implementation serves every lock
// (src/io/file-lock.ts: a lock the OS holds and releases when the process ends, assertHeld); this
// module names the run lock's file and its message.
import { type HeldLock, lockFileOf, takeLock } from "../io/file-lock.js";

export { lockBeside, lockFileOf, type OwnerRecord, readOwner } from "../io/file-lock.js";

/** A held run lock. */
export type RunLock = HeldLock;

const HINT =
  "Two runs would write the same rows twice; wait for the other run to finish. A stopped run (Ctrl-Z, a closed laptop) keeps its lock until it resumes and ends.";

/** Takes the run lock whose file is `lockFile` (for a destination: `lockBeside(path)`) or throws LockedError (exit 9). */
export async function takeRunLockFile(lockFile: string, what: string, hint = HINT): Promise<RunLock> {
  return takeLock(lockFile, { what, hint });
}

/** Takes the run lock for `path` (its file: `<path>.lock.json`) or throws LockedError (exit 9). */
export async function takeRunLock(path: string, what: string): Promise<RunLock> {
  return takeRunLockFile(lockFileOf(path), what);
}
