// File locks, one implementation for every lock partner-cli takes: export and sync runs (a cursor,
// an output file, a database), the config store's read-modify-write, the event store's appends and
// a sandbox data dir. `takeLock(file, { what, hint, wait })`; `withLock` around a function.
//
// The operating system holds the lock, not a protocol of ours: the lock file is opened (created
// 0600) and locked with fs-native-extensions (Linux: an fcntl open-file-description lock; macOS:
// flock; Windows: LockFileEx). The OS releases it when the file is closed, which happens when the
// process ends however it ends (SIGKILL included), so a dead holder's lock is free at once and a
// live holder's is never taken, however old. On NFS the server keeps the lock for the client host
// and frees it when that host's process closes the file or the host is declared gone.
// - One byte far past the record is locked, not the whole file: on Windows (and SMB shares) a
//   locked range cannot be read by others, and the record must stay readable for messages.
// - The unlink race: a releaser removes the lock file, then unlocks. A contender that opened the
//   file before the removal may then get the lock on a file no longer reachable by its name, so
//   after locking it checks that the path still names the inode it locked (dev + ino), else closes
//   and tries again. Everyone who holds a lock therefore holds it on the file the path names.
// - The holder writes a record into the locked file (pid, host, since, what): for messages only.
//   A busy lock is described from that record; a record from another host is just reported (that
//   host's process holds it until it ends; nothing here ever takes a lock over).
// - assertHeld() is one stat of the path compared with the inode locked (called before each write).
// - Waiting (`wait` ms) polls with a growing pause (2 ms up to 20 ms) on the clock's sleep.
// - A filesystem that refuses locks (ENOLCK, EOPNOTSUPP, ENOSYS, EINVAL) is a ConfigError (exit 4)
//   naming the file, never a silent pass: an unlocked run could write every row twice.
// The native module is loaded on the first lock taken, never by a command that takes none.
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { type Clock, systemClock } from "../clock.js";
import { ConfigError, LockedError } from "../errors.js";
import { loadNative, type NativeUse } from "./native.js";

/** The two calls used, with the offset and length of the locked range. */
interface Native {
  /** true: locked (exclusive); false: another open file holds it. */
  tryLock(fd: number, offset: number, length: number): boolean;
  unlock(fd: number, offset: number, length: number): void;
}

/** The addon's own functions, below the package's entry: tryLock throws EAGAIN when held. */
interface Binding {
  tryLock(fd: number, offset: number, length: number, exclusive: boolean): void;
  unlock(fd: number, offset: number, length: number): void;
}

/** The locked byte: past any record (1 GiB), so the record itself stays readable everywhere. */
const LOCK_OFFSET = 2 ** 30;
const LOCK_LENGTH = 1;

/** Errors of the lock call that mean "this filesystem does not do locks". */
const NO_LOCKS = new Set(["ENOLCK", "EOPNOTSUPP", "ENOTSUP", "ENOSYS", "EINVAL"]);

let native: Promise<Native> | undefined;
function lockAddon(): Promise<Native> {
  native ??= loadAddon();
  return native;
}

/**
 * The package's entry finds its prebuilt addon through a general resolver (require-addon) that
 * costs about 20 ms to load, four times the addon itself: the addon is loaded straight from its
 * prebuilds/ directory, and through the package's entry only where it is not there (a platform it
 * is built for on install, a changed layout).
 */
async function loadAddon(): Promise<Native> {
  try {
    const b = createRequire(import.meta.url)(
      `fs-native-extensions/prebuilds/${process.platform}-${process.arch}/fs-native-extensions.node`,
    ) as Partial<Binding>;
    if (typeof b.tryLock === "function" && typeof b.unlock === "function") return fromBinding(b as Binding);
  } catch {
    // not prebuilt for this platform (or not loadable here, as a glibc build on musl)
  }
  const m = await loadNative("fs-native-extensions", () => import("fs-native-extensions"), LOCKS);
  return { tryLock: (fd, o, l) => m.tryLock(fd, o, l), unlock: (fd, o, l) => m.unlock(fd, o, l) };
}

/** The file-lock addon (src/io/native.ts says this when it does not load). */
const LOCKS: NativeUse = {
  neededFor:
    "file locks (exports, syncs, the config file, the sandbox's data); it has builds for Linux with glibc, macOS and Windows, x64 and arm64",
  without:
    "commands that keep nothing on this machine, run with PARTNER_API_KEY and PARTNER_BASE_URL: reading and changing the roster, offers, campaigns and links, and reports",
};

function fromBinding(b: Binding): Native {
  return {
    tryLock(fd, offset, length) {
      try {
        b.tryLock(fd, offset, length, true);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EAGAIN") return false;
        throw err;
      }
    },
    unlock: (fd, offset, length) => b.unlock(fd, offset, length),
  };
}

/** Who holds a lock, as the holder wrote it into the lock file. For messages only. */
export interface OwnerRecord {
  pid: number;
  host: string;
  /** When the lock was taken (ISO, whole seconds). */
  since: string;
  /** What the lock guards, as the holder named it. */
  what?: string | undefined;
}

/** The lock file of a run lock kept under the config dir (`<path>.lock.json`). */
export function lockFileOf(path: string): string {
  return `${path}.lock.json`;
}

/**
 * The lock file for a destination (an export file, an event store, a database), beside it as a
 * hidden file: `<dir>/.<basename>.lock`. Every config dir and every host that writes the
 * destination sees this one lock.
 */
export function lockBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.lock`);
}

function describeOwner(r: OwnerRecord): string {
  return `pid ${r.pid}, on host ${r.host}, since ${r.since}`;
}

/** Why a lock was not taken: who holds it (from its record) and for how long we waited. */
export interface Busy {
  /** alive: held on this host; elsewhere: held from another host; unreadable: held, no record (yet). */
  state: "alive" | "elsewhere" | "unreadable";
  owner: OwnerRecord | undefined;
  lockFile: string;
  waitedMs: number;
}

export interface LockOptions {
  /** What the lock guards, for messages: "The output file out.csv". */
  what: string;
  /** How long to wait for the holder to release it, in ms (default 0: refuse at once). */
  wait?: number | undefined;
  /** The next step when another process holds it (default: wait for the other run, then run again). */
  hint?: string | undefined;
  /** The error for a lock not taken (default: LockedError, exit 9, naming the owner). */
  refuse?: ((busy: Busy) => Error) | undefined;
  clock?: Pick<Clock, "sleep"> | undefined;
}

/** A held lock. */
export interface HeldLock {
  /** Throws LockedError when the lock file was removed or replaced (or released): stop before writing. */
  assertHeld(): void;
  /** Removes the lock file (if it is still ours) and releases the lock; twice is harmless. */
  release(): Promise<void>;
}

/** The LockedError (exit 9) for a lock not taken. */
export function lockedError(b: Busy, what: string, hint?: string): LockedError {
  const next = hint ?? "Wait for the other run to finish, then run again.";
  if (!b.owner)
    return new LockedError(
      `${what} is in use by another process: ${b.lockFile} is locked, and its holder has not said who it is.`,
      next,
    );
  const by = `${what} is in use by another partner-cli run (${describeOwner(b.owner)})`;
  if (b.state === "elsewhere")
    return new LockedError(
      `${by}. The lock is released when that process ends (or, if that host is gone, when the file server notices); it is never taken over from here.`,
      next,
    );
  return new LockedError(`${by}.`, next);
}

type FileId = { dev: bigint; ino: bigint };

function statQuietly(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function sameFile(a: FileId | undefined, b: FileId): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/** The owner record in a lock file (read through `fd`, or by name); undefined when not (yet) one. */
function parseRecord(text: string): OwnerRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<OwnerRecord>;
    if (Number.isInteger(r.pid) && typeof r.host === "string" && typeof r.since === "string")
      return r as OwnerRecord;
  } catch {
    // empty (being written) or not ours
  }
  return undefined;
}

function readRecordFd(fd: number): OwnerRecord | undefined {
  const buf = Buffer.alloc(4096);
  try {
    return parseRecord(buf.toString("utf8", 0, readSync(fd, buf, 0, buf.length, 0)));
  } catch {
    return undefined;
  }
}

/** Reads the owner record of a lock file by name (for tests and messages). */
export function readOwner(lockFile: string): OwnerRecord | undefined {
  try {
    return parseRecord(readFileSync(lockFile, "utf8"));
  } catch {
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** Opens (creates, 0600) the lock file; undefined on Windows while a released one is still being deleted. */
function openLockFile(lockFile: string): number | undefined {
  try {
    return openSync(lockFile, constants.O_RDWR | constants.O_CREAT, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (process.platform === "win32" && (code === "EPERM" || code === "EACCES")) return undefined;
    throw err;
  }
}

/** The lock call failed: a filesystem without locks is the user's to fix (exit 4); anything else is ours. */
function lockCallError(err: unknown, lockFile: string, what: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (!code || !NO_LOCKS.has(code)) return err;
  return new ConfigError(
    `${what} cannot be locked: the filesystem of ${lockFile} does not support file locks (${code}).`,
    "Put it on a local disk (or a network filesystem with locking enabled), then run again.",
  );
}

type Try = { held: true; fd: number; id: FileId } | { held: false; owner: OwnerRecord | undefined };

/** One try: the lock on the file the path names, or who holds it. Never waits. */
function tryOnce(nat: Native, lockFile: string, what: string): Try {
  // Each extra round follows a release that happened between our open and our lock.
  for (let round = 0; round < 100; round++) {
    const fd = openLockFile(lockFile);
    if (fd === undefined) continue;
    let locked: boolean;
    try {
      locked = nat.tryLock(fd, LOCK_OFFSET, LOCK_LENGTH);
    } catch (err) {
      closeQuietly(fd);
      throw lockCallError(err, lockFile, what);
    }
    const id = fstatSync(fd, { bigint: true });
    const current = sameFile(statQuietly(lockFile), id);
    if (locked && current) return { held: true, fd, id: { dev: id.dev, ino: id.ino } };
    // Locked but unlinked (the releaser won the race), or busy: read who holds it first.
    const owner = locked ? undefined : readRecordFd(fd);
    if (locked) nat.unlock(fd, LOCK_OFFSET, LOCK_LENGTH);
    closeQuietly(fd);
    if (!locked && current) return { held: false, owner };
  }
  return { held: false, owner: undefined };
}

/** Whole seconds: `2026-11-28T01:02:03Z`. */
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** Writes our record into the locked file (first the bytes, then the length: never empty in between). */
function writeRecord(fd: number, what: string): void {
  const r: OwnerRecord = { pid: process.pid, host: hostname(), since: isoSeconds(new Date()), what };
  const buf = Buffer.from(`${JSON.stringify(r)}\n`);
  writeSync(fd, buf, 0, buf.length, 0);
  ftruncateSync(fd, buf.length);
}

/**
 * Takes the lock whose file is `lockFile` (its directory is created 0700 if missing), waiting up to
 * `wait` ms for the holder; throws `refuse(busy)` (default LockedError, exit 9) when it stays held.
 */
export async function takeLock(lockFile: string, o: LockOptions): Promise<HeldLock> {
  // A missing folder is made (config-dir locks); a path that is not a folder fails at the open below
  // (ENOTDIR: the machine's failure, named), never at mkdir with a misleading EEXIST.
  if (!existsSync(dirname(lockFile))) mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
  const nat = await lockAddon();
  const clock = o.clock ?? systemClock;
  const started = Date.now();
  const waitMs = o.wait ?? 0;
  let r = tryOnce(nat, lockFile, o.what);
  for (let pause = 2; !r.held && Date.now() - started < waitMs; ) {
    await clock.sleep(Math.min(pause, Math.max(1, waitMs - (Date.now() - started))));
    pause = Math.min(pause * 2, 20);
    r = tryOnce(nat, lockFile, o.what);
  }
  if (!r.held) {
    const owner = r.owner;
    const state = !owner ? "unreadable" : owner.host === hostname() ? "alive" : "elsewhere";
    const busy: Busy = { state, owner, lockFile, waitedMs: Date.now() - started };
    throw o.refuse ? o.refuse(busy) : lockedError(busy, o.what, o.hint);
  }
  try {
    writeRecord(r.fd, o.what);
  } catch (err) {
    await heldLock(nat, lockFile, r.fd, r.id, o.what).release();
    throw err;
  }
  return heldLock(nat, lockFile, r.fd, r.id, o.what);
}

function lostError(what: string, why: string): LockedError {
  return new LockedError(
    `${what}: this run's lock was ${why}; stopping before writing anything more.`,
    "What was saved before is kept; run again once no other run is going on.",
  );
}

function heldLock(nat: Native, lockFile: string, fd: number, id: FileId, what: string): HeldLock {
  let released = false;
  return {
    assertHeld() {
      if (released) throw lostError(what, "released");
      const now = statQuietly(lockFile);
      if (sameFile(now, id)) return;
      if (!now) throw lostError(what, "taken (its lock file was removed)");
      const other = readOwner(lockFile);
      throw lostError(
        what,
        `taken ${other ? `by another run (${describeOwner(other)})` : "(its lock file was replaced)"}`,
      );
    },
    async release() {
      if (released) return;
      released = true;
      // Unlink first, then unlock: whoever gets the lock on this file next sees it is gone and
      // tries again on a new one. Never remove a file that is not the one we locked.
      if (sameFile(statQuietly(lockFile), id)) {
        try {
          unlinkSync(lockFile);
        } catch {
          // removed meanwhile
        }
      }
      try {
        nat.unlock(fd, LOCK_OFFSET, LOCK_LENGTH);
      } finally {
        closeQuietly(fd);
      }
    },
  };
}

/** Runs `fn` holding the lock `lockFile` (see takeLock), releasing it afterwards whatever happens. */
export async function withLock<T>(lockFile: string, o: LockOptions, fn: () => Promise<T> | T): Promise<T> {
  const lock = await takeLock(lockFile, o);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
