// sync: brings a database (SQLite file or PostgreSQL schema) up to date with the organization.
// Order of a run: lock (a second run exits 9) → read the schema version (newer than known: exit 2)
// and the organization the copy belongs to → GET /me (another organization: exit 2, nothing
// written) → migrations → each kind, page by page, rows and checkpoint in one transaction.
import { plural } from "../../io/words.js";
import { getMe } from "../../api/me.js";
import { type Context, retryFromEnv } from "../../context.js";
import { feedPageSize } from "../shared/list.js";
import type { ApiClient } from "../../api/client.js";
import { backoffMs, DEFAULT_RETRY } from "../../api/retry-policy.js";
import { CancelledError, NetworkError, UsageError } from "../../errors.js";
import { machineFailure } from "../../io/machine-failure.js";
import { startStatusText } from "../../io/progress.js";
import { ConnectionLost } from "../../sync/connection.js";
import { feedDeadline } from "../../export/feed-loop.js";
import type { Destination } from "../../sync/destination.js";
import { openDestination } from "../../sync/open.js";
import { dayInZone } from "../../sync/rows.js";
import { LATEST_SCHEMA_VERSION } from "../../sync/schema.js";
import { KINDS, type Kind, type KindSummary, Syncer } from "../../sync/syncer.js";
import { resolveSyncTarget, scrub, type SyncTarget } from "../../sync/target.js";
import { checkOrganization, checkSchema } from "./checks.js";
import type { SyncDryRun } from "./dry-run.js";

export interface SyncOptions {
  to?: string | undefined;
  only?: string | undefined;
  fromStart?: boolean | undefined;
  full?: boolean | undefined;
  /** Items per feed request (1..1,000): --page-size. */
  pageSize?: number | undefined;
  /** The old name of --page-size (hidden; a notice says so). */
  limit?: number | undefined;
  /** Say per kind what would be read and written, from the checkpoints; write nothing. */
  dryRun?: boolean | undefined;
}

export interface SyncSummary {
  destination: string;
  organizationId: string;
  schemaVersion: number;
  migrationsApplied: number[];
  kinds: Record<string, KindSummary>;
}

const KIND_ALIASES: Record<string, Kind> = {
  offer: "offers",
  offers: "offers",
  campaign: "campaigns",
  campaigns: "campaigns",
  creator: "creators",
  creators: "creators",
  roster: "creators",
  link: "links",
  links: "links",
  share_links: "links",
  "share-links": "links",
  redemption: "redemptions",
  redemptions: "redemptions",
  event: "events",
  events: "events",
};

function parseKinds(only: string | undefined): Kind[] {
  if (only === undefined) return [...KINDS];
  const out = new Set<Kind>();
  for (const part of only.split(",").map((s) => s.trim().toLowerCase())) {
    if (!part) continue;
    const k = KIND_ALIASES[part];
    if (!k)
      throw new UsageError(
        `--only: unknown kind "${part}".`,
        `Kinds: ${KINDS.join(", ")} (comma-separated).`,
      );
    out.add(k);
  }
  if (out.size === 0) throw new UsageError("--only needs at least one kind.", `Kinds: ${KINDS.join(", ")}.`);
  return KINDS.filter((k) => out.has(k));
}

/** A run (its summary), or with `dryRun` the plan of one (SyncDryRun). */
export async function syncRun(
  o: SyncOptions & { dryRun?: false | undefined },
  ctx: Context,
): Promise<SyncSummary>;
export async function syncRun(o: SyncOptions, ctx: Context): Promise<SyncSummary | SyncDryRun>;
export async function syncRun(o: SyncOptions, ctx: Context): Promise<SyncSummary | SyncDryRun> {
  const kinds = parseKinds(o.only);
  const target = resolveSyncTarget(o.to, ctx.env);
  const pageSize = feedPageSize(o, ctx.io);
  // Who we talk to is checked before the database is touched: a bad key creates no file.
  const api = await ctx.api();
  const org = (await getMe(api)).organization;
  if (o.dryRun) {
    const { syncDryRun } = await import("./dry-run.js");
    return syncDryRun({ ...o, limit: pageSize }, ctx, kinds, target, org); // limit: the feed's page size
  }
  const settings = { ...DEFAULT_RETRY, ...retryFromEnv(ctx.env) };
  const started = ctx.clock.now().getTime();
  const run: SyncOnce = { kinds, target, api, org, totals: {}, connected: false, pageSize };
  // A connection lost mid-run is retried on a new one, like any temporary failure: the new run of
  // the same steps reads every checkpoint again, so nothing is written twice or skipped.
  for (let attempt = 0; ; attempt++) {
    try {
      return await syncOnce(o, ctx, run);
    } catch (err) {
      // A server that does not answer at the start exits 7 at once, as before; a lost one (this run
      // connected once, or the server ended a session it had accepted) is retried.
      if (!(err instanceof ConnectionLost && (run.connected || err.reached))) throw syncFailure(err, target);
      const delay = backoffMs(attempt, settings);
      if (
        attempt + 1 >= settings.maxAttempts ||
        ctx.clock.now().getTime() - started + delay > settings.deadlineMs
      )
        throw new NetworkError(
          `Lost the connection to PostgreSQL at ${target.label} and could not get it back after ${attempt + 1} attempt${attempt ? "s" : ""} over ${Math.round((ctx.clock.now().getTime() - started) / 1000)} s (${err.reason}). Every page committed so far is in ${target.label} with its checkpoint; nothing after it was kept.`,
          "CONNECT",
          target.label,
          "Check that the server is running and reachable (a restart, a failover, a terminated session), then run the same command again: it continues from the checkpoints.",
        );
      ctx.io.err(
        `Lost the connection to PostgreSQL at ${target.label} (${err.reason}); reconnecting in ${(delay / 1000).toFixed(1)} s to continue from the checkpoints.`,
      );
      await ctx.clock.sleep(delay, ctx.signal).catch(() => {});
      if (ctx.signal.aborted)
        throw new CancelledError(
          `Interrupted; every page committed so far is in ${target.label} with its checkpoint. Run again to continue.`,
        );
    }
  }
}

/** A failure of the database's machine (disk full, read-only, permissions, a missing native module): exit 10. */
function syncFailure(err: unknown, target: SyncTarget): unknown {
  return (
    machineFailure(err, {
      path: target.kind === "sqlite" ? target.path : undefined,
      kept: `Every page committed so far is in ${target.label} with its checkpoint, which is where it was; the failed page was rolled back.`,
    }) ?? err
  );
}

interface SyncOnce {
  kinds: Kind[];
  target: SyncTarget;
  api: ApiClient;
  org: Awaited<ReturnType<typeof getMe>>["organization"];
  /** Counts of earlier attempts (lost connections), carried on. */
  totals: Record<string, KindSummary>;
  /** Whether a connection was made once in this run (then a lost one is retried). */
  connected: boolean;
  /** Items per feed request (--page-size). */
  pageSize: number;
}

/** One connection's run: lock, checks, migrations, every kind; what it committed is added to `totals`. */
async function syncOnce(o: SyncOptions, ctx: Context, run: SyncOnce): Promise<SyncSummary> {
  const { kinds, target, api, org, totals } = run;
  const dest = await openDestination(target);
  run.connected = true;
  let syncer: Syncer | undefined;
  try {
    await dest.lock();
    await checkSchema(dest);
    const meta = await dest.meta();
    checkOrganization(dest.label, meta, org);
    const now = () => ctx.clock.now();
    const migrationsApplied = await dest.migrate(now().toISOString());
    if (migrationsApplied.length && ctx.verbose)
      ctx.io.err(
        `Applied schema migration${migrationsApplied.length > 1 ? "s" : ""} ${migrationsApplied.join(", ")}.`,
      );
    await recordOrganization(dest, meta, org, ctx);

    const status = startStatusText(ctx.io);
    syncer = new Syncer({
      api,
      dest,
      states: await dest.states(),
      timeZone: org.reportingTimeZone,
      fromStart: Boolean(o.fromStart),
      full: Boolean(o.full),
      limit: run.pageSize,
      now,
      deadline: feedDeadline(ctx),
      signal: ctx.signal,
      note: (line) => ctx.io.err(line),
      progress: (text) => status.show(`Syncing… ${text}`),
    });
    for (const [k, s] of Object.entries(totals)) syncer.summary[k] = { ...s };
    try {
      await syncer.run(kinds);
      await dest.flush();
    } finally {
      status.stop();
    }
    const summary: SyncSummary = {
      destination: dest.label,
      organizationId: org.id,
      schemaVersion: LATEST_SCHEMA_VERSION,
      migrationsApplied,
      kinds: syncer.summary,
    };
    const parts = Object.entries(syncer.summary).map(([k, s]) =>
      k === "corrections"
        ? `${plural(s.read, "correction")} (${s.changed} applied)`
        : `${k} ${s.read} read, ${s.changed} new or changed`,
    );
    ctx.io.err(`Synced ${org.name} into ${dest.label}: ${parts.join("; ")}.`);
    if (ctx.io.json) ctx.io.outJson({ summary });
    return summary;
  } catch (err) {
    if (err instanceof CancelledError) {
      // Also when Ctrl-C stopped a request in flight: say what is kept. close() commits what was handled.
      throw new CancelledError(
        `Interrupted; every page committed so far is in ${dest.label} with its checkpoint. Run again to continue.`,
      );
    }
    if (target.kind === "postgres" && err instanceof Error) err.message = scrub(err.message, target);
    if (syncer) for (const [k, s] of Object.entries(syncer.summary)) totals[k] = { ...s };
    throw err;
  } finally {
    await dest.close();
  }
}

/** The destination's record of the organization: written on the first run, kept current after. */
async function recordOrganization(
  dest: Destination,
  meta: Awaited<ReturnType<Destination["meta"]>>,
  org: SyncOnce["org"],
  ctx: Context,
): Promise<void> {
  const now = () => ctx.clock.now();
  const orgMeta = {
    organization_id: org.id,
    organization_name: org.name,
  };
  if (!meta.organization_id) {
    await dest.commit([], undefined, {
      ...orgMeta,
      reporting_time_zone: org.reportingTimeZone,
      first_synced_at: now().toISOString(),
    });
  } else if (meta.reporting_time_zone !== org.reportingTimeZone) {
    await recomputeDays(dest, org.reportingTimeZone, meta.reporting_time_zone, ctx);
  }
  if (meta.organization_name && meta.organization_name !== org.name)
    await dest.commit([], undefined, orgMeta);
}

/** The organization's reporting time zone changed: recompute every redemption's redeemed_day. */
async function recomputeDays(dest: Destination, tz: string, before: string | undefined, ctx: Context) {
  ctx.io.err(
    `The organization's reporting time zone changed from ${before ?? "(unknown)"} to ${tz}; recomputing the day of every redemption.`,
  );
  const day = dayInZone(tz);
  let after = "";
  for (;;) {
    const batch = await dest.redemptionTimes(after, 5000);
    const last = batch.length < 5000;
    await dest.setRedemptionDays(
      batch.map(([id, at]) => [id, day(at)]),
      last ? { reporting_time_zone: tz } : undefined,
    );
    if (last) return;
    after = batch[batch.length - 1]![0];
  }
}
