// The one place that tells the machine's own failures (a full or read-only disk, permissions, a
// missing native module...) from bugs: a raw NodeJS.ErrnoException, a SQLite code or a module load
// failure becomes a MachineError (exit 10) that names the path, what was kept and the next step.
// Commands call machineFailure() with what they know (the file written, what is committed); run()
// in src/main.ts calls it once more for anything that arrives raw, so none of these reaches exit 1.
import { accessSync, constants, existsSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, resolve } from "node:path";
import { CliError, MachineError } from "../errors.js";

export interface MachineContext {
  /** The file or directory concerned, when the error carries none (a write on an open file). */
  path?: string | undefined;
  /** What is committed and where the cursor or checkpoint is, for the message. */
  kept?: string | undefined;
}

/** "uid 1000" where there are uids, else the user's name (Windows has no process.getuid). */
function runningUser(): string {
  const uid = process.getuid?.();
  if (uid !== undefined) return `uid ${uid}`;
  try {
    return `user ${userInfo().username}`;
  } catch {
    return "user unknown";
  }
}

const DEFAULT_KEPT =
  "Nothing was left half-written: a saved cursor or checkpoint moves only after the data it covers is durable, so it is where it was.";
const AGAIN = "then run the same command again: it continues from the saved cursor or checkpoint.";
const NOT_A_BUG = "This is the machine's failure, not a bug in partner-cli.";

/** What each code means, and the next step (`dir`: the directory concerned). */
const KINDS: Record<string, { what: string; next: (path: string, dir: string) => string }> = {
  ENOSPC: {
    what: "No space left on the device",
    next: (_p, dir) =>
      `Free space on the file system of ${dir} (df -h ${dir}), or choose another place; ${AGAIN}`,
  },
  EDQUOT: {
    what: "The disk quota is used up",
    next: (_p, dir) => `Free space in your quota on ${dir} (quota -s), or have it raised; ${AGAIN}`,
  },
  EFBIG: {
    what: "The file is larger than this file system or limit (ulimit -f) allows",
    next: (p) => `Write to another file system, or raise the file size limit for ${p}; ${AGAIN}`,
  },
  EROFS: {
    what: "The file system is read-only",
    next: (_p, dir) =>
      `${dir} is on a read-only file system (mounted read-only, or remounted so after disk errors: see dmesg). Choose a writable place or have it remounted read-write; ${AGAIN}`,
  },
  EACCES: {
    what: "Permission denied",
    next: (p) =>
      `The user running partner-cli (${runningUser()}) may not write ${p}: fix its owner or permissions (ls -ld), or choose another place; ${AGAIN}`,
  },
  EISDIR: {
    what: "A directory is where a file was expected",
    next: (p) => `${p} is a directory: name a file instead, or move the directory away; ${AGAIN}`,
  },
  ENOTDIR: {
    what: "A file is where a directory was expected",
    next: (p) => `A part of ${p} is a file, not a directory: fix the path, or move that file away; ${AGAIN}`,
  },
  EMFILE: {
    what: "Too many open files",
    next: () =>
      `This process reached its open-file limit: raise it (ulimit -n; LimitNOFILE for a service); ${AGAIN}`,
  },
  EIO: {
    what: "An input/output error from the disk",
    next: (_p, dir) =>
      `The disk or its connection (a network mount, a failing drive) holding ${dir} reported an error: check the system log (dmesg) and the disk before running again.`,
  },
  // The native packages partner-cli loads go through src/io/native.ts (exit 4, naming the package);
  // this is the net for a native module loaded any other way.
  NATIVE: {
    what: "A native module of partner-cli does not load on this machine",
    next: () =>
      "Its binary is missing or built for another platform or Node version: reinstall partner-cli on this machine (npm install -g partner-cli; npm ci in a checkout) without --omit=optional or --ignore-scripts flags that drop optional packages, and with the Node version you run it with.",
  },
};
KINDS.EPERM = KINDS.EACCES!;
KINDS.ENFILE = {
  what: "Too many open files on this system",
  next: () =>
    `The whole system reached its open-file limit (fs.file-max): close programs or raise it; ${AGAIN}`,
};

/** A few native packages (and any .node addon): a missing one is a broken install, not a bug. */
const NATIVE_MODULE = /libsql|@napi-rs\/keyring|@neon-rs\/load|\.node\b|No native build was found/i;
/** What loaders that catch the load error themselves say (napi-rs, prebuild's node-gyp-build). */
const NATIVE_LOADER = /No native build was found|Cannot find native binding/i;

/** The first code in an error's cause chain (napi-rs keeps the dlopen error there). */
function causeCode(err: unknown, depth = 0): string | undefined {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (!cause || depth > 5) return undefined;
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" && code ? code : causeCode(cause, depth + 1);
}

/** For a path that could not be opened or made: the errno of the nearest existing directory's check. */
function probeWritable(path: string): string | undefined {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
}

/** SQLite's codes (libsql), as the errno they stand for; CANTOPEN and READONLY ask the file system why. */
function sqliteCode(code: string, message: string, path: string | undefined): string | undefined {
  if (code === "SQLITE_FULL") return "ENOSPC";
  if (code.startsWith("SQLITE_IOERR")) return "EIO";
  const cantOpen = /Unable to open connection to local database .*: 14\b/.test(message);
  if (cantOpen || /^SQLITE_(READONLY|CANTOPEN|PERM)/.test(code))
    return (path && probeWritable(path)) ?? (code.startsWith("SQLITE_READONLY") ? "EROFS" : "EACCES");
  return undefined;
}

/** The code this failure is classed under (a key of KINDS), or undefined for anything else. */
function classify(err: NodeJS.ErrnoException, path: string | undefined): string | undefined {
  const code = typeof err.code === "string" ? err.code : "";
  const message = typeof err.message === "string" ? err.message : "";
  if (code in KINDS && code !== "NATIVE") return code;
  if (
    code === "ERR_DLOPEN_FAILED" ||
    NATIVE_LOADER.test(message) ||
    ((code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") && NATIVE_MODULE.test(message))
  )
    return "NATIVE";
  const sqlite = sqliteCode(code, message, path);
  if (sqlite) return sqlite in KINDS ? sqlite : "EACCES";
  // A recursive mkdir under a read-only or forbidden directory reports ENOENT: ask the directory.
  if (code === "ENOENT" && err.syscall === "mkdir" && path) {
    const probed = probeWritable(path);
    if (probed && probed in KINDS) return probed;
  }
  return undefined;
}

/**
 * The machine's failure as a MachineError (exit 10), or undefined when `err` is not one (a bug or
 * anything else stays what it is). An error that is already a MachineError is returned as it is.
 */
export function machineFailure(err: unknown, c: MachineContext = {}): MachineError | undefined {
  if (err instanceof MachineError) return err;
  if (!(err instanceof Error) || err instanceof CliError) return undefined;
  const e = err as NodeJS.ErrnoException;
  const path = typeof e.path === "string" ? e.path : c.path;
  const kind = classify(e, path);
  if (!kind) return undefined;
  const k = KINDS[kind]!;
  // The code the failure is classed under first (EROFS for a SQLite CANTOPEN on a read-only mount).
  const code = kind === "NATIVE" ? e.code || causeCode(e) || "ERR_DLOPEN_FAILED" : kind;
  const why = [code, e.code && e.code !== code ? `reported as ${e.code}` : undefined, e.syscall]
    .filter(Boolean)
    .join(", ");
  const detail = kind === "NATIVE" ? `: ${e.message.split("\n")[0]}` : path ? `: ${path}` : "";
  const dir = path ? (kind === "EISDIR" ? path : dirname(path)) : ".";
  return new MachineError(
    `${k.what} (${why})${detail}. ${c.kept ?? DEFAULT_KEPT}`,
    `${k.next(path ?? "the file written (run again with --verbose)", dir)} ${NOT_A_BUG}`,
    { code, path, syscall: e.syscall },
  );
}

/** Gives a raw file-system error the path it concerns when it has none (writes on an open handle). */
export function withPath(err: unknown, path: string): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof Error && typeof e.code === "string" && e.path === undefined) e.path = path;
  return err;
}
