// Checkpoints of incremental reads (redemption feed, correction events, event sync), kept in the
// config store's `cursors` map, one per profile, organization, feed and name (spec: Feeds: keep a
// checkpoint per feed, organization and event-type filter). A checkpoint is saved only after the
// output it covers is durable, and in one locked write with the output's committed length.
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { ConfigStore, SavedCursor } from "../config/store.js";
import type { Context, Target } from "../context.js";

export type FeedKind = "redemptions" | "corrections" | "events";

export interface FeedPosition {
  /** The cursor to read from next (null: from the start). */
  cursor: string | null;
  /** Ids already written from the page that `cursor` starts at (the last page repeats). */
  skipIds: string[];
}

export interface Checkpoint extends SavedCursor {
  feed: FeedKind;
  name: string;
  profile: string;
  organizationId: string;
  skipIds: string[];
  /** The output file the last run appended to, and its length when the checkpoint was saved. */
  out?: string | null | undefined;
  committedBytes?: number | undefined;
  /** Event-type filter (events sync). */
  type?: string | null | undefined;
}

/** The profile part of a checkpoint key: the stored profile, the embedded sandbox, or the env key's host. */
export function profileLabel(t: Target): string {
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

export function checkpointKey(
  profile: string,
  organizationId: string,
  feed: FeedKind,
  name: string,
  type?: string | null,
): string {
  return [profile, organizationId, feed, name, ...(type ? [type] : [])].join("|");
}

/** The lock file for a named cursor of a profile (taken before any request, so a second run exits 9 at once). */
export function lockPathFor(ctx: Context, profile: string, name: string, feed: string): string {
  const h = createHash("sha256").update(`${profile}|${feed}|${name}`).digest("hex").slice(0, 16);
  return join(ctx.configDir(), "locks", `${feed}-${h}`);
}

export async function loadCheckpoint(store: ConfigStore, key: string): Promise<Checkpoint | undefined> {
  return (await store.read()).cursors[key] as Checkpoint | undefined;
}

/** Saves several checkpoints in one locked write. */
export async function saveCheckpoints(store: ConfigStore, entries: [string, Checkpoint][]): Promise<void> {
  await store.update((d) => {
    for (const [k, v] of entries) d.cursors[k] = v;
  });
}

/** The position to resume from, or the start. */
export function positionOf(cp: Checkpoint | undefined): FeedPosition {
  return cp ? { cursor: cp.cursor, skipIds: cp.skipIds ?? [] } : { cursor: null, skipIds: [] };
}
