// The config store's lock around read-modify-write (src/io/file-lock.ts, the one lock
// implementation): `<config.json>.lock.json`, waited for (another command's update takes
// milliseconds); a process that dies holding it releases it at once (the OS does).
import { lockFileOf, withLock as withFileLock } from "../io/file-lock.js";

/** Runs `fn` while holding the lock on `path`, waiting for it up to 30 s. */
export async function withLock<T>(path: string, fn: () => Promise<T> | T): Promise<T> {
  return withFileLock(lockFileOf(path), { what: `The configuration ${path}`, wait: 30_000 }, fn);
}
