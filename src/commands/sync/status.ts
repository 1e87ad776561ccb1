// sync status: what the copy in a database holds and how current it is, read from the database alone
// (no API key needed): per kind the rows held, the last sync, the cursor's age, and whether the event
// log's 30-day window has been outrun (then what a rebuild from resource reads can and cannot recover,
// per the spec's Recovery section). When a service is configured (a profile, or PARTNER_API_KEY with
// PARTNER_BASE_URL), one GET /me compares this machine's clock with the service's Date header and a
// difference over a minute is a warning; without one, or when the service does not answer at once, the
// status is the database's alone. The check's client is the command's (proxy, trace), with one quick attempt.
import { serviceClock } from "../../api/me.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { type Column, printList } from "../../io/render.js";
import type { Destination, FeedState } from "../../sync/destination.js";
import { openDestination } from "../../sync/open.js";
import { CORRECTION_TYPES, FEEDS } from "../../sync/syncer.js";
import type { TableName } from "../../sync/schema.js";
import { resolveSyncTarget, scrub } from "../../sync/target.js";
import { checkSchema } from "./checks.js";

const EVENT_LOG_DAYS = 30;
const DAY_MS = 86_400_000;

export interface KindStatus {
  kind: string;
  /** Rows in the kind's table (corrections: notices handled). */
  rows: number;
  lastSyncedAt: string | null;
  lastCompletedAt: string | null;
  /** Seconds since the copy last caught up with the end of this feed or list (null: never). */
  cursorAgeSeconds: number | null;
  /** Event-log feeds only: the 30-day window passed since the last complete read. */
  windowOutrun: boolean | null;
}

export interface SyncStatus {
  destination: string;
  schemaVersion: number;
  organization: { id: string | null; name: string | null; reportingTimeZone: string | null };
  firstSyncedAt: string | null;
  kinds: KindStatus[];
  eventLogWindowOutrun: boolean;
  /** When outrun: what a rebuild from resource reads recovers and what it cannot. */
  recovery: string | null;
  /** This machine's clock less the service's, in seconds (null: not compared, no service configured). */
  clockSkewSeconds: number | null;
}

/** A local clock further than this from the service's is worth a warning. */
const CLOCK_SKEW_WARN_MS = 60_000;

const KIND_TABLES: [string, TableName | null, string[]][] = [
  ["redemptions", "redemptions", [FEEDS.redemptions]],
  ["corrections", null, CORRECTION_TYPES.map((t) => FEEDS.corrections(t))],
  ["events", "events", [FEEDS.events]],
  ["creators", "creators", [FEEDS.creators]],
  ["campaigns", "campaigns", [FEEDS.campaigns]],
  ["offers", "offers", [FEEDS.offers]],
  ["links", "share_links", [FEEDS.links]],
];

const LOG_KINDS = new Set(["corrections", "events"]);

/** The oldest of some timestamps, or null when one is missing (a feed never read). */
function oldest(values: (string | null)[]): string | null {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  return values.reduce((a, b) => (Date.parse(b!) < Date.parse(a!) ? b : a));
}

function newest(values: (string | null)[]): string | null {
  const present = values.filter((v): v is string => v !== null);
  if (present.length === 0) return null;
  return present.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
}

export function age(seconds: number | null): string {
  if (seconds === null) return "never";
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)}m`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}

function recoveryText(daysBehind: number): string {
  return [
    `The event log keeps ${EVENT_LOG_DAYS} days, and this copy last read it to the end ${daysBehind} days ago: events of the days in between that fall outside the window are gone from the log, and reading on from the saved cursor does not report the gap.`,
    `A rebuild from resource reads (partner-cli sync --from-start --full) recovers every redemption with its current counting state (the feed serves current states, so exclusions and restorations missed in the gap are repaired), the roster, campaigns, offers and share links, and the events of the last ${EVENT_LOG_DAYS} days.`,
    `It cannot recover the missed events older than ${EVENT_LOG_DAYS} days: the code-issued and campaign status-change history (and the exclusion and restoration notices, supply alerts and assignment completions of those days). Counts for those days remain available from the reports (partner-cli reports ...).`,
  ].join("\n");
}

async function readStatus(dest: Destination, nowMs: number): Promise<SyncStatus> {
  const version = await checkSchema(dest);
  if (version === 0)
    throw new UsageError(
      `${dest.label} holds no partner-cli copy yet.`,
      `Run "partner-cli sync --to ${dest.label}" first.`,
    );
  const meta = await dest.meta();
  const states = new Map<string, FeedState>((await dest.states()).map((s) => [s.feed, s]));
  const kinds: KindStatus[] = [];
  let outrunDays = 0;
  for (const [kind, table, feeds] of KIND_TABLES) {
    const st = feeds.map((f) => states.get(f));
    const rows = table ? await dest.count(table) : st.reduce((n, s) => n + (s?.items ?? 0), 0);
    const lastSyncedAt = newest(st.map((s) => s?.lastSyncedAt ?? null));
    const lastCompletedAt = oldest(st.map((s) => s?.lastCompletedAt ?? null));
    const cursorAgeSeconds =
      lastCompletedAt === null ? null : Math.max(0, Math.round((nowMs - Date.parse(lastCompletedAt)) / 1000));
    let windowOutrun: boolean | null = null;
    if (LOG_KINDS.has(kind)) {
      const ref = lastCompletedAt ?? lastSyncedAt;
      windowOutrun = ref === null ? null : nowMs - Date.parse(ref) > EVENT_LOG_DAYS * DAY_MS;
      if (windowOutrun) outrunDays = Math.max(outrunDays, Math.floor((nowMs - Date.parse(ref!)) / DAY_MS));
    }
    kinds.push({ kind, rows, lastSyncedAt, lastCompletedAt, cursorAgeSeconds, windowOutrun });
  }
  return {
    destination: dest.label,
    schemaVersion: version,
    organization: {
      id: meta.organization_id ?? null,
      name: meta.organization_name ?? null,
      reportingTimeZone: meta.reporting_time_zone ?? null,
    },
    firstSyncedAt: meta.first_synced_at ?? null,
    kinds,
    eventLogWindowOutrun: outrunDays > 0,
    recovery: outrunDays > 0 ? recoveryText(outrunDays) : null,
    clockSkewSeconds: null,
  };
}

const COLUMNS: Column<KindStatus>[] = [
  { header: "kind", value: (k) => k.kind },
  { header: "rows", value: (k) => k.rows },
  { header: "lastSync", value: (k) => k.lastSyncedAt ?? "never" },
  { header: "cursorAge", value: (k) => age(k.cursorAgeSeconds) },
  {
    header: "eventLogWindow",
    value: (k) => (k.windowOutrun === null ? "" : k.windowOutrun ? "OUTRUN" : "within 30 days"),
  },
];

export interface SyncStatusOptions {
  /** The destination URL (--to; else PARTNER_SYNC_TO, else the default file). */
  to?: string | undefined;
}

/**
 * This machine's clock less the service's (ms), from the Date header of one GET /me; undefined
 * without a configured service or an answer. One attempt, a few seconds at most: status must not
 * wait on a service that is down (hence a client of its own, not the command's retrying one).
 */
async function clockSkewMs(ctx: Context): Promise<number | undefined> {
  try {
    const t = await ctx.localTarget();
    if (!t.baseUrl) return undefined;
    const client = ctx.clientFor(t, {
      retry: { maxAttempts: 1 },
      connectTimeoutMs: 3000,
      requestTimeoutMs: 5000,
    });
    try {
      const c = await serviceClock(client, () => ctx.clock.now());
      return c && c.local.getTime() - c.service.getTime();
    } finally {
      await client.close();
    }
  } catch (err) {
    if (ctx.verbose) ctx.io.err(`(clock not compared with the service's: ${(err as Error).message})`);
    return undefined;
  }
}

function skewWarning(ms: number): string {
  const how = ms > 0 ? "ahead of" : "behind";
  return [
    `Warning: this machine's clock is ${age(Math.round(Math.abs(ms) / 1000))} ${how} the service's (by its Date header).`,
    "The copy does not depend on it (the roster's checkpoint is the service's time), but lastSync and cursorAge are this machine's times: set its clock (NTP).",
  ].join("\n");
}

export async function syncStatusRun(o: SyncStatusOptions, ctx: Context): Promise<SyncStatus> {
  const target = resolveSyncTarget(o.to, ctx.env);
  const dest = await openDestination(target, { mustExist: true });
  try {
    const skew = clockSkewMs(ctx);
    const status = await readStatus(dest, ctx.clock.now().getTime());
    const skewMs = await skew;
    if (skewMs !== undefined) status.clockSkewSeconds = Math.round(skewMs / 1000);
    if (skewMs !== undefined && Math.abs(skewMs) > CLOCK_SKEW_WARN_MS) ctx.io.err(skewWarning(skewMs));
    if (ctx.io.json) {
      ctx.io.outJson(status);
      return status;
    }
    const org = status.organization;
    ctx.io.err(
      `${status.destination}: the copy of ${org.name ?? "?"} (${org.id ?? "?"}), reporting time zone ${org.reportingTimeZone ?? "?"}, schema version ${status.schemaVersion}.`,
    );
    printList(ctx.io, status.kinds, COLUMNS);
    if (status.recovery)
      ctx.io.err(
        `\nWarning: the event log's ${EVENT_LOG_DAYS}-day window has been outrun.\n${status.recovery}`,
      );
    return status;
  } catch (err) {
    if (target.kind === "postgres" && err instanceof Error) err.message = scrub(err.message, target);
    throw err;
  } finally {
    await dest.close();
  }
}
