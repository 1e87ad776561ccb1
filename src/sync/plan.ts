// What a `sync` run would read and write per kind, from the saved checkpoints (sync --dry-run). The
// same choices as the Syncer's (syncer.ts): a feed continues from its cursor unless --from-start or
// never read; the roster reads what changed since the last completed read unless --full, --from-start
// or never read; the other lists are read whole every time.
import type { FeedState } from "./destination.js";
import type { TableName } from "./schema.js";
import { CORRECTION_TYPES, FEEDS, type Kind, KINDS } from "./syncer.js";

export interface FeedPlan {
  kind: string;
  /** The sync_state row this step reads and moves. */
  feed: string;
  /** beginning: from the start of the feed or the whole list; checkpoint: from the saved position. */
  start: "beginning" | "checkpoint";
  /** Why it starts there, in words. */
  why: string;
  /** The saved checkpoint (null: none). */
  checkpoint: {
    cursor: string | null;
    skipIds: number;
    items: number;
    since: string | null;
    lastSyncedAt: string | null;
    lastCompletedAt: string | null;
  } | null;
  read: { method: "GET"; path: string; query: Record<string, string | number> };
  write: { table: TableName; mode: "upsert" | "insert" };
}

export interface PlanOptions {
  fromStart: boolean;
  full: boolean;
  limit: number;
}

const PAGE = 200;

function checkpointOf(st: FeedState | undefined): FeedPlan["checkpoint"] {
  if (!st) return null;
  return {
    cursor: st.cursor,
    skipIds: st.skipIds.length,
    items: st.items,
    since: st.since,
    lastSyncedAt: st.lastSyncedAt,
    lastCompletedAt: st.lastCompletedAt,
  };
}

/** The saved position of a feed, in words. */
function positionText(st: FeedState): string {
  const skip = st.skipIds.length
    ? `, skipping the ${st.skipIds.length} ids of that page already handled`
    : "";
  if (st.cursor !== null)
    return `continues after cursor ${st.cursor}${skip} (${st.items} items handled so far)`;
  if (skip)
    return `continues from the checkpoint: the first page again${skip} (${st.items} items handled so far)`;
  return "the checkpoint is at the beginning (nothing read from it yet)";
}

/** A cursor feed (redemptions, corrections, events): from the saved cursor, or from the beginning. */
function feedPlan(
  kind: string,
  feed: string,
  st: FeedState | undefined,
  o: PlanOptions,
  read: { path: string; query: Record<string, string | number> },
  write: FeedPlan["write"],
): FeedPlan {
  // A position is a cursor and the ids already handled from the page it starts at; a null cursor
  // with handled ids is the feed's first page, read again and those ids skipped.
  const at = o.fromStart || !st ? undefined : st;
  const resume = at !== undefined && (at.cursor !== null || at.skipIds.length > 0);
  const query: Record<string, string | number> = { ...read.query, limit: o.limit };
  if (resume && at.cursor !== null) query.after = at.cursor;
  return {
    kind,
    feed,
    start: resume ? "checkpoint" : "beginning",
    why: o.fromStart ? "--from-start" : at ? positionText(at) : "no checkpoint saved yet",
    checkpoint: checkpointOf(st),
    read: { method: "GET", ...read, query },
    write,
  };
}

/** A paged list read whole (offers, campaigns, links; the roster with --full or never read). */
function listPlan(
  kind: string,
  feed: string,
  st: FeedState | undefined,
  path: string,
  table: TableName,
  why: string,
): FeedPlan {
  return {
    kind,
    feed,
    start: "beginning",
    why,
    checkpoint: checkpointOf(st),
    read: { method: "GET", path, query: { page: "0..last", pageSize: PAGE } },
    write: { table, mode: "upsert" },
  };
}

function creatorsPlan(st: FeedState | undefined, o: PlanOptions): FeedPlan {
  const full = o.full || o.fromStart || !st?.since;
  const why = o.full
    ? "--full: the whole roster"
    : o.fromStart
      ? "--from-start: the whole roster"
      : full
        ? "no completed roster read yet: the whole roster"
        : `the creators updated since ${st!.since} (the last completed read, less a margin)`;
  const p = listPlan("creators", FEEDS.creators, st, "/creators", "creators", why);
  if (full) return p;
  return {
    ...p,
    start: "checkpoint",
    read: { ...p.read, query: { updatedSince: st!.since!, ...p.read.query } },
  };
}

/** Per kind asked for, in the order a run takes them, what it would read and write. */
export function syncPlan(kinds: readonly Kind[], states: FeedState[], o: PlanOptions): FeedPlan[] {
  const by = new Map(states.map((s) => [s.feed, s]));
  const out: FeedPlan[] = [];
  const every = "lists are read whole on every run";
  for (const k of KINDS) {
    if (!kinds.includes(k)) continue;
    if (k === "offers") out.push(listPlan(k, FEEDS.offers, by.get(FEEDS.offers), "/offers", "offers", every));
    else if (k === "campaigns")
      out.push(listPlan(k, FEEDS.campaigns, by.get(FEEDS.campaigns), "/campaigns", "campaigns", every));
    else if (k === "creators") out.push(creatorsPlan(by.get(FEEDS.creators), o));
    else if (k === "links")
      out.push(
        listPlan(
          k,
          FEEDS.links,
          by.get(FEEDS.links),
          "/campaigns/{id}/creators",
          "share_links",
          `${every}, for every campaign`,
        ),
      );
    else if (k === "redemptions") {
      out.push(
        feedPlan(
          k,
          FEEDS.redemptions,
          by.get(FEEDS.redemptions),
          o,
          { path: "/redemptions", query: {} },
          {
            table: "redemptions",
            mode: "upsert",
          },
        ),
      );
      for (const type of CORRECTION_TYPES) {
        const feed = FEEDS.corrections(type);
        const p = feedPlan(
          "corrections",
          feed,
          by.get(feed),
          o,
          { path: "/events", query: { type } },
          {
            table: "redemptions",
            mode: "upsert",
          },
        );
        p.why += "; then GET /redemptions/{id} of each corrected redemption the copy holds";
        out.push(p);
      }
    } else
      out.push(
        feedPlan(
          k,
          FEEDS.events,
          by.get(FEEDS.events),
          o,
          { path: "/events", query: {} },
          {
            table: "events",
            mode: "insert",
          },
        ),
      );
  }
  return out;
}
