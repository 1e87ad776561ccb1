// The run lock: keeps two exports (or syncs) of one cursor or output file from running at once. It
// is taken without waiting: a second run exits 9. One lock implementation serves every lock
// (src/io/file-lock.ts: owner records, takeover of a dead owner only, assertHeld); this module names
// the run lock's file and its message.
import { type HeldLock, lockFileOf, takeLock } from "../io/file-lock.js";

export {
  lockFileOf,
  type OwnerRecord,
  ownerState,
  ownRecord,
  procStat,
  processAlive,
  readOwner,
} from "../io/file-lock.js";

/** A held run lock. */
export type RunLock = HeldLock;

export const RUN_LOCK_HINT =
  "Two runs would write the same rows twice; wait for the other run to finish. A stopped run (Ctrl-Z, a closed laptop) keeps its lock until it resumes and ends.";

/** Takes the run lock for `path` (its record: `<path>.lock.json`) or throws LockedError (exit 9). */
export async function takeRunLock(path: string, what: string): Promise<RunLock> {
  return takeLock(lockFileOf(path), { what, hint: RUN_LOCK_HINT });
}
