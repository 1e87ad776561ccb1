// File locks, one implementation for every lock partner-cli takes: export and sync runs (a cursor,
// an output file, a database), the config store's read-modify-write, the event store's appends and
// a sandbox data dir. `takeLock(file, { what, wait, takeOverDeadOwner })`; `withLock` around a function.
//
// The rules, and why this is not proper-lockfile: proper-lockfile judges a lock by its age (an mtime
// refreshed by a timer) and takes over one that has not been refreshed for `stale` ms; a run stopped
// for 31 s (SIGSTOP, a laptop lid, a stalled NFS mount) lost its lock that way, resumed, doubled rows
// and then died of ECOMPROMISED thrown from the refresh timer. Here:
// - A lock is taken over only when its owner process is gone, never because it is old. There is no
//   timer and nothing to refresh.
// - The owner record survives pid reuse: pid, the process's start time (field 22 of /proc/PID/stat)
//   and the boot id (/proc/sys/kernel/random/boot_id) on Linux, and the host name. A live pid with
//   another start time, or a record from an earlier boot, is a dead owner. Without /proc only the pid
//   is checked. A record written on another host is never judged: it holds until released there.
// - The record appears whole or not at all: it is written to a private temporary file and fsynced,
//   then hard-linked to the lock's name (link(2) fails when the name exists; atomic, NFS included).
// - Taking over a dead owner's lock is race-free: each record carries a random token, and only the
//   process that exclusively creates the takeover marker `<lock>.takeover-<token>-<k>` may remove
//   that record, after reading again that it is still there. Nobody else can remove it meanwhile
//   (its owner is dead), so exactly one contender replaces it; the others find a live owner.
//   If a marker's creator itself died mid-takeover, the next number k is used, so a crash never
//   wedges the lock.
// - assertHeld() reads the record (one small file) and compares the token.
// - Waiting (`wait` ms) polls with a growing pause (2 ms up to 20 ms) on the clock's sleep.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { open, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { type Clock, systemClock } from "../clock.js";
import { LockedError } from "../errors.js";
import { withPath } from "./machine-failure.js";

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Who holds a lock. `start` and `boot` are absent where /proc is. */
export interface OwnerRecord {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/PID/stat field 22). */
  start?: string | undefined;
  /** /proc/sys/kernel/random/boot_id of the machine the owner ran on. */
  boot?: string | undefined;
  host: string;
  /** Random; names this one holding of the lock (takeover markers, assertHeld). */
  token: string;
  /** When the lock was taken (ISO), for messages. */
  since: string;
}

/** State and start time of a process from /proc/PID/stat; undefined when unreadable (no /proc, no such pid). */
export function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const start = fields[19];
  return state && start ? { state, start } : undefined;
}

let bootIdCache: string | null | undefined;
function bootId(): string | undefined {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache ?? undefined;
}

/** The owner record of this process, with a fresh token. */
export function ownRecord(): OwnerRecord {
  return {
    pid: process.pid,
    start: procStat(process.pid)?.start,
    boot: bootId(),
    host: hostname(),
    token: randomBytes(12).toString("hex"),
    since: new Date().toISOString(),
  };
}

export type OwnerState = "alive" | "dead" | "elsewhere";

/** Whether the process a record names is still the one that wrote it. */
export function ownerState(r: OwnerRecord): OwnerState {
  if (r.host !== hostname()) return "elsewhere";
  const boot = bootId();
  if (r.boot && boot && r.boot !== boot) return "dead";
  if (!processAlive(r.pid)) return "dead";
  const st = procStat(r.pid);
  if (st) {
    // A zombie (killed, not yet reaped) writes nothing more.
    if (st.state === "Z" || st.state === "X") return "dead";
    if (r.start && st.start !== r.start) return "dead"; // the pid was reused
  }
  // Alive, or alive as far as can be seen (no /proc, or another user's process hidden by hidepid).
  return "alive";
}

type Read = { kind: "missing" } | { kind: "unreadable" } | { kind: "record"; record: OwnerRecord };

/** Reads an owner record: one small file. */
export function readOwner(file: string): Read {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable" };
  }
  // A bare pid: the append lock of the event store as older versions wrote it. Same host, no start
  // time; its token is derived from the pid (takeover markers need a name).
  if (/^\d{1,10}\s*$/.test(text) && Number(text) > 0) {
    const pid = Number(text);
    return {
      kind: "record",
      record: { pid, host: hostname(), token: `0000${pid.toString(16).padStart(8, "0")}`, since: "?" },
    };
  }
  try {
    const r = JSON.parse(text) as Partial<OwnerRecord>;
    if (
      Number.isInteger(r.pid) &&
      (r.pid as number) > 0 &&
      typeof r.token === "string" &&
      /^[0-9a-f]{8,64}$/.test(r.token) &&
      typeof r.host === "string"
    ) {
      return { kind: "record", record: r as OwnerRecord };
    }
  } catch {
    // not JSON
  }
  return { kind: "unreadable" };
}

/** The file that holds the owner record of the run lock at `path`. */
export function lockFileOf(path: string): string {
  return `${path}.lock.json`;
}

/** Writes and flushes an owner record on libuv's threads: the event loop stays free meanwhile. */
async function writeRecordFile(file: string, r: OwnerRecord): Promise<void> {
  const fh = await open(file, "wx", 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(r)}\n`);
    await fh.sync();
  } catch (err) {
    // A full disk: no half-written record is left, and the error names the lock file.
    await fh.close().catch(() => {});
    await unlink(file).catch(() => {});
    throw withPath(err, file);
  } finally {
    await fh.close().catch(() => {});
  }
}

/** link(2): true when `to` was created, false when it already existed. */
function linkExclusive(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

export function describeOwner(r: OwnerRecord): string {
  const where = r.host === hostname() ? "" : ` on host ${r.host}`;
  return `pid ${r.pid}${where}, since ${r.since}`;
}

/** The outcome of one try: held, or held by someone else (why). */
export type TryResult =
  | { held: true; record: OwnerRecord }
  | { held: false; owner: OwnerRecord | undefined; state: OwnerState | "unreadable" };

/**
 * One non-blocking try at the lock file `lock`: creates it with this process's record, or takes it
 * over when its owner is gone. Never removes a live owner's record.
 */
export async function tryLock(lock: string, takeOverDeadOwner = true): Promise<TryResult> {
  // A live owner (or a dead one we may not replace): answer without writing anything.
  const pre = readOwner(lock);
  if (pre.kind === "record") {
    const state = ownerState(pre.record);
    if (state !== "dead" || !takeOverDeadOwner) return { held: false, owner: pre.record, state };
  }
  const dir = dirname(lock);
  const base = basename(lock);
  const mine = ownRecord();
  const tmp = join(dir, `${base}.tmp-${mine.token}`);
  await writeRecordFile(tmp, mine);
  try {
    for (let round = 0; round < 50; round++) {
      if (linkExclusive(tmp, lock)) {
        cleanUp(dir, base, mine.token);
        return { held: true, record: mine };
      }
      const cur = readOwner(lock);
      if (cur.kind === "missing") continue; // released just now: try again
      if (cur.kind === "unreadable") return { held: false, owner: undefined, state: "unreadable" };
      const state = ownerState(cur.record);
      if (state !== "dead" || !takeOverDeadOwner) return { held: false, owner: cur.record, state };
      const took = takeOver(lock, cur.record, tmp);
      if (took === true) {
        cleanUp(dir, base, mine.token);
        return { held: true, record: mine };
      }
      if (took !== false) return { held: false, owner: took, state: "alive" };
    }
    return { held: false, owner: undefined, state: "alive" };
  } finally {
    unlinkQuietly(tmp);
  }
}

/**
 * Replaces the dead owner's record with ours. Returns true when the lock is now ours, false when the
 * lock changed meanwhile (try again from the start), or the record of a live process that is taking
 * it over right now.
 */
function takeOver(lock: string, dead: OwnerRecord, tmp: string): boolean | OwnerRecord {
  for (let k = 0; k < 64; k++) {
    const marker = `${lock}.takeover-${dead.token}-${k}`;
    if (!linkExclusive(tmp, marker)) {
      const m = readOwner(marker);
      if (m.kind === "missing") return false; // that takeover finished: look at the lock again
      if (m.kind === "record" && ownerState(m.record) !== "dead") return m.record;
      continue; // its creator died mid-takeover: the next number
    }
    try {
      // Only a holder of a marker for this token may remove this record, and every earlier holder
      // is dead: if the record is still there, nobody else can remove it before we do.
      const cur = readOwner(lock);
      if (cur.kind !== "record" || cur.record.token !== dead.token) return false;
      unlinkSync(lock);
      return linkExclusive(tmp, lock);
    } finally {
      unlinkQuietly(marker);
    }
  }
  return false;
}

/**
 * Removes debris beside a lock we now hold: takeover markers of earlier holders (their tokens never
 * come back, so no takeover can be in progress on them) and temporary files of dead processes.
 */
function cleanUp(dir: string, base: string, token: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const rest = name.slice(base.length + 1);
    if (rest.startsWith("takeover-") && !rest.startsWith(`takeover-${token}-`)) {
      unlinkQuietly(join(dir, name));
    } else if (rest.startsWith("tmp-") && rest !== `tmp-${token}`) {
      const r = readOwner(join(dir, name));
      if (r.kind === "record" && ownerState(r.record) === "dead") unlinkQuietly(join(dir, name));
    }
  }
}

/** Removes the lock file `lock` if it still holds the record with `token` (never someone else's). */
export async function releaseLock(lock: string, token: string): Promise<void> {
  const cur = readOwner(lock);
  if (cur.kind === "record" && cur.record.token === token) await unlink(lock).catch(() => {});
}

/** Why a lock was not taken: who holds it (as far as can be seen) and for how long we waited. */
export interface Busy {
  /** alive: a live owner; elsewhere: an owner on another host; dead: a gone owner not taken over. */
  state: OwnerState | "unreadable";
  owner: OwnerRecord | undefined;
  lockFile: string;
  waitedMs: number;
}

export interface LockOptions {
  /** What the lock guards, for messages: "The output file out.csv". */
  what: string;
  /** How long to wait for a live owner to release it, in ms (default 0: refuse at once). */
  wait?: number | undefined;
  /** Take over a lock whose owner process is gone (default true). */
  takeOverDeadOwner?: boolean | undefined;
  /** The next step when a live owner holds it (default: wait for the other run, then run again). */
  hint?: string | undefined;
  /** The error for a lock not taken (default: LockedError, exit 9, naming the owner). */
  refuse?: ((busy: Busy) => Error) | undefined;
  clock?: Pick<Clock, "sleep"> | undefined;
}

/** A held lock. */
export interface HeldLock {
  /** Throws LockedError when the lock is no longer this process's (taken over, removed): stop before writing. */
  assertHeld(): void;
  /** Removes our record (never someone else's); twice is harmless. */
  release(): Promise<void>;
}

/** The LockedError (exit 9) for a lock not taken. */
export function lockedError(b: Busy, what: string, hint?: string): LockedError {
  const lock = b.lockFile;
  if (b.state === "unreadable")
    return new LockedError(
      `${what} is locked by ${lock}, which is not a partner-cli lock record.`,
      "If no partner-cli run is going on, remove that file and run again.",
    );
  if (b.state === "elsewhere")
    return new LockedError(
      `${what} is in use by another partner-cli run (${describeOwner(b.owner!)}); it cannot be checked from this host.`,
      `If that run is gone, remove ${lock} and run again.`,
    );
  if (b.state === "dead")
    return new LockedError(
      `${what} is locked by ${lock}, left by a partner-cli run that is gone (${describeOwner(b.owner!)}).`,
      `Remove ${lock} and run again.`,
    );
  return new LockedError(
    `${what} is in use by another partner-cli run${b.owner ? ` (${describeOwner(b.owner)})` : ""}.`,
    hint ?? "Wait for the other run to finish, then run again.",
  );
}

/**
 * Takes the lock whose record is the file `lockFile` (its directory is created 0700), waiting up to
 * `wait` ms for a live owner; throws `refuse(busy)` (default LockedError, exit 9) when it stays held.
 */
export async function takeLock(lockFile: string, o: LockOptions): Promise<HeldLock> {
  mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
  const clock = o.clock ?? systemClock;
  const started = Date.now();
  const waitMs = o.wait ?? 0;
  let r = await tryLock(lockFile, o.takeOverDeadOwner ?? true);
  // Only a live owner (here or elsewhere) can release; an unreadable or kept dead record never will.
  const worthWaiting = (x: TryResult) => !x.held && (x.state === "alive" || x.state === "elsewhere");
  for (let pause = 2; worthWaiting(r) && Date.now() - started < waitMs; ) {
    await clock.sleep(Math.min(pause, Math.max(1, waitMs - (Date.now() - started))));
    pause = Math.min(pause * 2, 20);
    r = await tryLock(lockFile, o.takeOverDeadOwner ?? true);
  }
  if (!r.held) {
    const busy: Busy = { state: r.state, owner: r.owner, lockFile, waitedMs: Date.now() - started };
    throw o.refuse ? o.refuse(busy) : lockedError(busy, o.what, o.hint);
  }
  return heldLock(lockFile, r.record.token, o.what);
}

function heldLock(lock: string, token: string, what: string): HeldLock {
  let released = false;
  return {
    assertHeld() {
      const cur = readOwner(lock);
      if (released || cur.kind !== "record" || cur.record.token !== token) {
        const by =
          cur.kind === "record"
            ? ` by another run (${describeOwner(cur.record)})`
            : cur.kind === "missing"
              ? " (its lock file was removed)"
              : " (its lock file was overwritten)";
        throw new LockedError(
          `${what}: this run's lock was taken${by}; stopping before writing anything more.`,
          "What was saved before is kept; run again once no other run is going on.",
        );
      }
    },
    async release() {
      if (released) return;
      released = true;
      // Only our own record is removed: nobody takes over a live owner's lock, so it is still ours
      // unless someone removed or replaced the file by hand.
      await releaseLock(lock, token);
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
