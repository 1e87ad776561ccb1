// Cursors: the one module that owns the checkpoints of incremental reads (the redemption feed and
// its correction feeds for `redemptions export`, the event log for `events sync`): their key, where
// they are saved, the lock of their destination, and the conversion of the entries older versions
// kept in config.json.
//
// A cursor belongs to what it feeds. It is keyed by
// - the organization id (from GET /me),
// - the feed and its event-type filter,
// - the destination: the output file's real path (symlinks resolved), or a name (`--cursor NAME`)
//   for a series without one appendable file (stdout, a new workbook per run).
// The base URL's spelling, the profile and where the key came from are attributes (shown by
// `cursors list`), never part of the key: the same organization reached under another spelling
// continues the same cursor, and a quick export into another file never moves the cron file's.
//
// Checkpoints are not kept in config.json (which holds profiles and keys): each destination has a
// file of its own under `<config dir>/cursors/` (0600 in a 0700 directory), written whole (temporary
// file, fsync, rename) by the one run that holds the destination's lock, so a save never waits for
// another run and never rewrites the credentials.
//
// The lock of a destination is taken before any request: for a file, beside the file itself (every
// config dir and host that writes it sees it); for a named cursor, in the config dir.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { ensurePrivateDir } from "../config/paths.js";
import { normalizeBaseUrl } from "../config/profiles.js";
import type { ConfigStore, SavedCursor } from "../config/store.js";
import { CliError } from "../errors.js";
import { lockBeside } from "../io/file-lock.js";
import { withPath } from "../io/machine-failure.js";
import { replaceFile, syncFolder } from "../io/private-file.js";
import type { FileState } from "./durable-output.js";
import { type FeedPosition, START } from "./feed-loop.js";
import { type CursorId, type Destination, destKey, type FeedKind } from "./cursor-id.js";
import { type RunLock, takeRunLockFile } from "./run-lock.js";

/** Who last used a cursor, and how: shown by `cursors list`, never part of the key. */
export interface Attributes {
  /** The normalized base URL, or "(embedded sandbox)". */
  service: string;
  /** The stored profile, or where the key came from ("PARTNER_API_KEY", "embedded sandbox"). */
  via: string;
}

export interface Checkpoint extends SavedCursor {
  feed: FeedKind;
  /** The label shown for the cursor: `--cursor NAME` (or "default"); an event sync's store path. */
  name: string;
  organizationId: string;
  organizationName?: string | undefined;
  type?: string | null | undefined;
  skipIds: string[];
  /** The output file (real path), or null for stdout and workbooks. */
  out?: string | null | undefined;
  /** Committed length of `out` (for display, and for entries converted from older versions). */
  committedBytes?: number | undefined;
  /** What the output file holds and what is being written to it (the feed's main checkpoint only). */
  file?: FileState | null | undefined;
  service?: string | undefined;
  via?: string | undefined;
  /** Rows recorded before this instant (ISO) are not written by this cursor (`--since` on its first run). */
  since?: string | undefined;
  /** Set once, by the conversion of an entry an older version kept in config.json. */
  convertedFrom?: string | undefined;
  /** The file's cursor was continued in another file (`--continue-from`): nothing is appended here any more. */
  closed?: { continuedIn: string; at: string } | undefined;
}

export interface Entry {
  key: string;
  cp: Checkpoint;
}

/** Nothing read yet: no cursor, and no id of the first page handled (that page's cursor is null too). */
export const atStart = (p: { cursor: string | null; skipIds?: readonly string[] | undefined }) =>
  p.cursor === null && (p.skipIds?.length ?? 0) === 0;

/** The destination as a key part: "file:/abs/path" or "named:NAME". */
/** What a cursor's attributes are taken from (a subset of context.ts's Target). */
export interface TargetFacts {
  baseUrl: string;
  source: string;
  profileName: string | null;
}

/** The service and the way in of a target, as `cursors list` shows them. */
export function attributesOf(t: TargetFacts): Attributes {
  if (t.source === "embedded") return { service: "(embedded sandbox)", via: "embedded sandbox" };
  let service = t.baseUrl;
  try {
    service = normalizeBaseUrl(t.baseUrl, "base URL");
  } catch {
    // shown as given
  }
  const via =
    t.source === "profile"
      ? `profile "${t.profileName}"`
      : t.profileName
        ? `PARTNER_API_KEY (profile "${t.profileName}")`
        : "PARTNER_API_KEY";
  return { service, via };
}

const hash16 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

// ---- locks ----

/**
 * The run lock of a destination, taken before any request, without waiting (a second run exits 9):
 * beside the file (`.NAME.lock`), so runs of every config dir and host see it; for a named cursor,
 * in this config dir.
 */
export async function lockDestination(configDir: string, dest: Destination, what: string): Promise<RunLock> {
  if (dest.kind === "file") return lockFile(dest.path, what);
  return takeRunLockFile(
    join(ensurePrivateDir(join(configDir, "locks")), `named-${hash16(dest.name)}.lock`),
    what,
  );
}

/** The run lock of a file destination (an export's output, an event store, a SQLite copy): beside it. */
export async function lockFile(path: string, what: string): Promise<RunLock> {
  return takeRunLockFile(
    lockBeside(path),
    what,
    "Another run (from this or another config directory or host) is writing to this file; two writers would put the same rows in it twice. Wait for that run to finish. A stopped run (Ctrl-Z, a closed laptop) keeps its lock until it resumes and ends.",
  );
}

// ---- the store ----

/** The checkpoints of one config dir: a file per destination under `<dir>/cursors/`. */
export class CheckpointStore {
  readonly dir: string;

  constructor(configDir: string) {
    this.dir = join(configDir, "cursors");
  }

  fileOf(dest: Destination): string {
    return join(this.dir, `${hash16(destKey(dest))}.json`);
  }

  /** Every checkpoint of one destination (any organization, any feed). */
  of(dest: Destination): Entry[] {
    return entriesOf(readStoreFile(this.fileOf(dest)));
  }

  /** Every checkpoint of this config dir. */
  all(): Entry[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    return names
      .filter((f) => f.endsWith(".json"))
      .flatMap((f) => entriesOf(readStoreFile(join(this.dir, f))));
  }

  /**
   * Writes a destination's checkpoints: `put` laid over what is saved (`remove` taken out first),
   * whole or not at all (a private temporary file, fsynced, renamed over the old one). Only the
   * holder of the destination's lock calls it. Returns what is saved now.
   */
  async save(dest: Destination, put: readonly Entry[], remove: readonly string[] = []): Promise<Entry[]> {
    const file = this.fileOf(dest);
    const map = new Map(this.of(dest).map((e) => [e.key, e.cp]));
    for (const k of remove) map.delete(k);
    for (const e of put) map.set(e.key, e.cp);
    await this.write(file, dest, map);
    return [...map].map(([key, cp]) => ({ key, cp }));
  }

  /** Like save, without reading the file first: `all` is everything the destination holds. */
  async replace(dest: Destination, all: readonly Entry[]): Promise<void> {
    await this.write(this.fileOf(dest), dest, new Map(all.map((e) => [e.key, e.cp])));
  }

  private async write(file: string, dest: Destination, map: Map<string, Checkpoint>): Promise<void> {
    const created = this.ensureDir();
    if (map.size === 0) {
      await rm(file, { force: true });
      return;
    }
    const body = JSON.stringify({ version: 1, destination: destKey(dest), cursors: Object.fromEntries(map) });
    try {
      await replaceFile(file, body);
    } catch (err) {
      // A full or read-only disk is named with the cursor file (exit 10); the old checkpoint stands.
      throw withPath(err, file);
    }
    if (created) await syncFolder(this.dir);
  }

  private dirReady = false;
  /** The directory, made private; whether it had to be created. */
  private ensureDir(): boolean {
    if (this.dirReady) return false;
    const created = !existsSync(this.dir);
    ensurePrivateDir(this.dir);
    this.dirReady = true;
    return created;
  }
}

function readStoreFile(file: string): Record<string, Checkpoint> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  try {
    const data = JSON.parse(text) as { cursors?: Record<string, Checkpoint> };
    return data.cursors ?? {};
  } catch (err) {
    throw new CliError(
      `The cursor file ${file} is not valid JSON (${(err as Error).message}).`,
      "Restore it from a backup, or remove it (its cursor is then forgotten: the next run of its file is refused, and a new file starts from the beginning).",
    );
  }
}

const entriesOf = (m: Record<string, Checkpoint>): Entry[] =>
  Object.entries(m).map(([key, cp]) => ({ key, cp }));

/**
 * The checkpoint store of a config dir, with the cursors an older version kept in config.json
 * converted first (once: each to the file it last wrote, or to its name when it wrote to stdout).
 */
export async function openCheckpoints(configDir: string, config: ConfigStore): Promise<CheckpointStore> {
  const store = new CheckpointStore(configDir);
  const data = await config.read();
  if (Object.keys(data.cursors).length > 0) {
    const { convertOldCursors } = await import("./checkpoint-convert.js");
    await convertOldCursors(store, config);
  }
  return store;
}

// ---- positions ----

/** The position to resume from, or the start. */
export function positionOf(cp: Checkpoint | undefined): FeedPosition {
  return cp ? { cursor: cp.cursor, skipIds: [...(cp.skipIds ?? [])] } : { ...START, skipIds: [] };
}

/** A checkpoint for `pos`, stamped with `now` (the Context's clock). */
export function checkpointOf(
  id: CursorId,
  pos: FeedPosition,
  o: {
    name: string;
    organizationName: string;
    rows: number;
    attributes: Attributes;
    file?: FileState | null | undefined;
    now: Date;
  },
): Checkpoint {
  return {
    feed: id.feed,
    name: o.name,
    organizationId: id.organizationId,
    organizationName: o.organizationName,
    type: id.type ?? null,
    cursor: pos.cursor,
    skipIds: pos.skipIds,
    rows: o.rows,
    out: id.dest.kind === "file" ? id.dest.path : null,
    ...(o.file !== undefined ? { file: o.file, committedBytes: o.file?.bytes } : {}),
    service: o.attributes.service,
    via: o.attributes.via,
    updatedAt: o.now.toISOString(),
  };
}

// ---- words ----

/** The organization as messages name it. */
export function orgLabel(cp: Pick<Checkpoint, "organizationId" | "organizationName">): string {
  return cp.organizationName ? `${cp.organizationName} (${cp.organizationId})` : cp.organizationId;
}

/** A cursor as messages name it: 'the export cursor of /x.csv (organization Org (id))'. */
export function describeCursor(cp: Checkpoint): string {
  const what =
    cp.feed === "events"
      ? cp.out
        ? `the event sync${cp.type ? ` (${cp.type})` : ""} of ${cp.out}`
        : `the cursor of "${cp.name}"${cp.type ? ` (${cp.type})` : ""}`
      : cp.out
        ? `the export cursor of ${cp.out}`
        : `export cursor "${cp.name}"`;
  return `${what}, organization ${orgLabel(cp)}`;
}
