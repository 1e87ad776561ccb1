// The run lock: keeps two exports (or syncs) of one cursor or output file from running at once. It
// is taken without waiting: a second run exits 9.
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
//   (its owner is dead), so exactly one contender replaces it; the others find a live owner and exit 9.
//   If a marker's creator itself died mid-takeover, the next number k is used, so a crash never
//   wedges the lock.
// - assertHeld() reads the record (one small file) and compares the token.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
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

function writeRecordFile(file: string, r: OwnerRecord): void {
  const fd = openSync(file, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(r)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
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

function describeOwner(r: OwnerRecord): string {
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
export function tryLock(lock: string): TryResult {
  // A live owner: answer without writing anything.
  const pre = readOwner(lock);
  if (pre.kind === "record") {
    const state = ownerState(pre.record);
    if (state !== "dead") return { held: false, owner: pre.record, state };
  }
  const dir = dirname(lock);
  const base = basename(lock);
  const mine = ownRecord();
  const tmp = join(dir, `${base}.tmp-${mine.token}`);
  writeRecordFile(tmp, mine);
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
      if (state !== "dead") return { held: false, owner: cur.record, state };
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
export function releaseLock(lock: string, token: string): void {
  const cur = readOwner(lock);
  if (cur.kind === "record" && cur.record.token === token) unlinkQuietly(lock);
}

/** A held run lock. */
export interface RunLock {
  /** Throws LockedError when the lock is no longer this process's (taken over, removed): stop before writing. */
  assertHeld(): void;
  release(): Promise<void>;
}

/** Takes the run lock for `path` or throws LockedError (exit 9). */
export async function takeRunLock(path: string, what: string): Promise<RunLock> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const lock = lockFileOf(path);
  const r = tryLock(lock);
  if (!r.held) {
    if (r.state === "unreadable") {
      throw new LockedError(
        `${what} is locked by ${lock}, which is not a partner-cli lock record.`,
        "If no partner-cli run is going on, remove that file and run again.",
      );
    }
    if (r.state === "elsewhere") {
      throw new LockedError(
        `${what} is in use by another partner-cli run (${describeOwner(r.owner!)}); it cannot be checked from this host.`,
        `If that run is gone, remove ${lock} and run again.`,
      );
    }
    throw new LockedError(
      `${what} is in use by another partner-cli run${r.owner ? ` (${describeOwner(r.owner)})` : ""}.`,
      "Two runs would write the same rows twice; wait for the other run to finish. A stopped run (Ctrl-Z, a closed laptop) keeps its lock until it resumes and ends.",
    );
  }
  const token = r.record.token;
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
      releaseLock(lock, token);
    },
  };
}
