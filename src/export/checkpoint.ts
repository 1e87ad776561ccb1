// Checkpoints of incremental reads (redemption feed, correction events, event sync), kept in the
// config store's `cursors` map. A cursor belongs to the service and the organization (spec: Feeds:
// keep a checkpoint per feed, organization and event-type filter): it is keyed by the service's
// normalized base URL, the organization id, the feed, the cursor name and the event-type filter,
// never by the profile or by where the key came from, so a job moved from PARTNER_API_KEY to a stored
// profile of the same service and organization continues the same cursor.
//
// Entries saved by older versions were keyed by a label of the target (the profile name,
// "NAME@env", "env@HOST" or "embedded-sandbox") instead of the service. Such an entry is adopted,
// once, by the first run with the same label, organization, feed and name: that run saves it under
// the new key and removes the old one in the same locked write.
//
// A checkpoint is saved only after the output it covers is durable (handle() of the feed loop), in
// one locked write of the config store, with the state of the output file (durable-output.ts).
import { createHash } from "node:crypto";
import { join } from "node:path";
import { normalizeBaseUrl } from "../config/profiles.js";
import type { ConfigData, ConfigStore, SavedCursor } from "../config/store.js";
import { LockedError } from "../errors.js";
import type { FileState } from "./durable-output.js";
import { type FeedPosition, START } from "./feed-loop.js";
import { type RunLock, takeRunLock } from "./run-lock.js";

export type FeedKind = "redemptions" | "corrections" | "events";

/** What a cursor is keyed by, from the target (a subset of context.ts's Target). */
export interface TargetFacts {
  baseUrl: string;
  source: string;
  profileName: string | null;
}

/** The identity of one checkpoint. */
export interface CursorId {
  /** The normalized base URL, or "(embedded sandbox)". */
  service: string;
  organizationId: string;
  feed: FeedKind;
  name: string;
  /** Event-type filter (corrections: the correction type; events sync: --type). */
  type?: string | null | undefined;
}

export interface Checkpoint extends SavedCursor {
  feed: FeedKind;
  name: string;
  /** The service (absent in entries saved by older versions). */
  service?: string | undefined;
  organizationId: string;
  organizationName?: string | undefined;
  /** Older versions: the target label the entry was keyed by. */
  profile?: string | undefined;
  type?: string | null | undefined;
  skipIds: string[];
  /** The output file (resolved path), or null for stdout. */
  out?: string | null | undefined;
  /** Committed length of `out` (kept for older entries and for display). */
  committedBytes?: number | undefined;
  /** What the output file holds and what is being written to it (the feed's main checkpoint only). */
  file?: FileState | null | undefined;
}

/** The service a target talks to: its normalized base URL ("(embedded sandbox)" for the embedded one, whose port changes). */
export function serviceOf(t: TargetFacts): string {
  if (t.source === "embedded") return "(embedded sandbox)";
  try {
    return normalizeBaseUrl(t.baseUrl, "base URL");
  } catch {
    return t.baseUrl;
  }
}

/** The label older versions keyed checkpoints by: the stored profile, the embedded sandbox, or the env key's host. */
export function legacyLabel(t: TargetFacts): string {
  if (t.source === "embedded") return "embedded-sandbox";
  if (t.profileName && t.source === "profile") return t.profileName;
  const host = (() => {
    try {
      return new URL(t.baseUrl).host;
    } catch {
      return t.baseUrl;
    }
  })();
  return t.profileName ? `${t.profileName}@env` : `env@${host}`;
}

export function cursorKey(id: CursorId): string {
  return [id.service, id.organizationId, id.feed, id.name, ...(id.type ? [id.type] : [])].join("|");
}

/** The key an older version used. */
export function legacyKey(label: string, id: Omit<CursorId, "service">): string {
  return [label, id.organizationId, id.feed, id.name, ...(id.type ? [id.type] : [])].join("|");
}

const hash16 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

/**
 * The run lock of a cursor (service, lock family, name): taken before any request, so a second run
 * exits 9 at once. Exports lock "redemptions" (their correction cursors included); syncs "events".
 */
export function cursorLockPath(
  configDir: string,
  service: string,
  family: "redemptions" | "events",
  name: string,
): string {
  return join(configDir, "locks", `${family}-${hash16(`${service}|${family}|${name}`)}`);
}

/** The run lock of an output file (its resolved path): two cursors never write one file at once. */
export function outputLockPath(configDir: string, path: string): string {
  return join(configDir, "locks", `out-${hash16(path)}`);
}

/** Takes the output file's run lock; exit 9 with a message about the file when another run writes it. */
export async function takeOutputLock(configDir: string, path: string): Promise<RunLock> {
  try {
    return await takeRunLock(outputLockPath(configDir, path), `The output file ${path}`);
  } catch (err) {
    if (!(err instanceof LockedError)) throw err;
    throw new LockedError(
      err.message,
      "Another run (of another cursor, or another sync) is writing to this file; two writers would put the same rows in it twice. Give each cursor its own --out, or wait for that run to finish.",
    );
  }
}

export interface Entry {
  key: string;
  cp: Checkpoint;
  /** Saved by an older version (keyed by a target label, no service). */
  legacy: boolean;
}

export function allEntries(data: ConfigData): Entry[] {
  return Object.entries(data.cursors).map(([key, v]) => {
    const cp = v as Checkpoint;
    return { key, cp, legacy: !cp.service };
  });
}

/** Whether an entry belongs to this target's service (or, saved by an older version, to its label). */
export function ofTarget(e: Entry, service: string, label: string): boolean {
  return e.legacy ? e.cp.profile === label : e.cp.service === service;
}

/** This cursor's entries for every organization: of this service, or older ones of this target label. */
export function cursorEntries(
  data: ConfigData,
  service: string,
  label: string,
  feed: FeedKind,
  name: string,
  type?: string | null,
): Entry[] {
  return allEntries(data).filter(
    (e) =>
      e.cp.feed === feed &&
      e.cp.name === name &&
      (e.cp.type ?? null) === (type ?? null) &&
      ofTarget(e, service, label),
  );
}

/** The entries that write to `path` (their feed's main checkpoint: correction cursors are not counted). */
export function writersOf(data: ConfigData, path: string): Entry[] {
  return allEntries(data).filter((e) => e.cp.out === path && e.cp.feed !== "corrections");
}

export interface Found {
  /** The key the checkpoint is saved under from now on. */
  key: string;
  cp: Checkpoint | undefined;
  /** The older entry being adopted (removed at the first save). */
  adoptFrom?: string | undefined;
}

/** This cursor's checkpoint for an organization; an older entry of the same target label is adopted. */
export function findCheckpoint(
  data: ConfigData,
  id: CursorId,
  label: string,
  legacyName: string = id.name,
): Found {
  const key = cursorKey(id);
  const cp = data.cursors[key] as Checkpoint | undefined;
  if (cp) return { key, cp };
  const old = legacyKey(label, { ...id, name: legacyName });
  const legacy = data.cursors[old] as Checkpoint | undefined;
  if (legacy && !legacy.service) return { key, cp: legacy, adoptFrom: old };
  return { key, cp: undefined };
}

/** The position to resume from, or the start. */
export function positionOf(cp: Checkpoint | undefined): FeedPosition {
  return cp ? { cursor: cp.cursor, skipIds: [...(cp.skipIds ?? [])] } : { ...START, skipIds: [] };
}

/** A checkpoint for `pos`, stamped with `now` (the Context's clock). */
export function checkpointOf(
  id: CursorId,
  pos: FeedPosition,
  o: {
    organizationName: string;
    rows: number;
    out: string | null;
    file?: FileState | null | undefined;
    now: Date;
  },
): Checkpoint {
  return {
    feed: id.feed,
    name: id.name,
    service: id.service,
    organizationId: id.organizationId,
    organizationName: o.organizationName,
    type: id.type ?? null,
    cursor: pos.cursor,
    skipIds: pos.skipIds,
    rows: o.rows,
    out: o.out,
    ...(o.file !== undefined ? { file: o.file, committedBytes: o.file?.bytes } : {}),
    updatedAt: o.now.toISOString(),
  };
}

/** Saves several checkpoints in one locked write, removing adopted older entries in the same write. */
export async function saveCheckpoints(
  store: ConfigStore,
  entries: [string, Checkpoint][],
  remove: readonly string[] = [],
): Promise<void> {
  await store.update((d) => {
    for (const k of remove) delete d.cursors[k];
    for (const [k, v] of entries) d.cursors[k] = v;
  });
}

/** The organization as messages name it. */
export function orgLabel(cp: Pick<Checkpoint, "organizationId" | "organizationName">): string {
  return cp.organizationName ? `${cp.organizationName} (${cp.organizationId})` : cp.organizationId;
}

/** A cursor as messages name it: 'cursor "default" of https://x (Org (id))'. */
export function describeCursor(cp: Checkpoint): string {
  const name =
    cp.feed === "events" ? `the event sync${cp.type ? ` (${cp.type})` : ""}` : `cursor "${cp.name}"`;
  const where = cp.service ? `of ${cp.service}` : `(saved by an older partner-cli as "${cp.profile ?? "?"}")`;
  return `${name} ${where}, organization ${orgLabel(cp)}`;
}
