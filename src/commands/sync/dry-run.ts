// sync --dry-run: what a run would read and write per kind, from the checkpoints the destination
// holds. Nothing is written: a SQLite file that does not exist is not created (nor its directory's
// lock file), no schema or migration is applied, no checkpoint moves. The checks a run makes before
// writing (the schema version, someone else's tables, the organization of the copy) refuse as they would.
import type { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { printList, type Column } from "../../io/render.js";
import type { FeedState } from "../../sync/destination.js";
import { openDestination } from "../../sync/open.js";
import { type FeedPlan, syncPlan } from "../../sync/plan.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../sync/schema.js";
import { realDatabasePath } from "../../sync/sqlite.js";
import type { Kind } from "../../sync/syncer.js";
import { scrub, type SyncTarget } from "../../sync/target.js";
import { LIMITS } from "../../spec/limits.js";
import { checkOrganization, checkSchema } from "./checks.js";

/** The options of `sync` a plan depends on. */
interface PlanFlags {
  fromStart?: boolean | undefined;
  full?: boolean | undefined;
  limit?: number | undefined;
}

type Org = Awaited<ReturnType<typeof getMe>>["organization"];

export interface SyncDryRun {
  dryRun: true;
  destination: string;
  /** false: a SQLite file that a run would create. */
  databaseExists: boolean;
  schemaVersion: number;
  /** Migrations a run would apply (all of them for a new database). */
  migrations: { version: number; description: string }[];
  organization: { id: string; name: string };
  /** A change of reporting time zone a run would apply to every redemption's day first. */
  recomputeDays: { from: string | null; to: string } | null;
  kinds: FeedPlan[];
}

interface Held {
  exists: boolean;
  version: number;
  meta: Record<string, string>;
  states: FeedState[];
}

/** The destination's version, meta and checkpoints, read without writing (or nothing, for a new file). */
async function readHeld(target: SyncTarget): Promise<Held> {
  if (target.kind === "sqlite") {
    const { existsSync } = await import("node:fs");
    if (!existsSync(realDatabasePath(target.path)))
      return { exists: false, version: 0, meta: {}, states: [] };
  }
  const dest = await openDestination(target, { mustExist: true, readonly: true });
  try {
    const version = await checkSchema(dest);
    return { exists: true, version, meta: await dest.meta(), states: await dest.states() };
  } catch (err) {
    if (target.kind === "postgres" && err instanceof Error) err.message = scrub(err.message, target);
    throw err;
  } finally {
    await dest.close();
  }
}

const COLUMNS: Column<FeedPlan>[] = [
  { header: "kind", value: (p) => p.kind },
  { header: "feed", value: (p) => p.feed },
  { header: "start", value: (p) => p.start },
  {
    header: "read",
    value: (p) =>
      `${p.read.method} ${p.read.path}?${Object.entries(p.read.query)
        .map(([k, v]) => `${k}=${v}`)
        .join("&")}`,
  },
  { header: "write", value: (p) => `${p.write.table} (${p.write.mode})` },
  { header: "why", value: (p) => p.why },
];

export async function syncDryRun(
  o: PlanFlags,
  ctx: Context,
  kinds: Kind[],
  target: SyncTarget,
  org: Org,
): Promise<SyncDryRun> {
  const held = await readHeld(target);
  checkOrganization(target.label, held.meta, org);
  const tz = held.meta.reporting_time_zone;
  const plan: SyncDryRun = {
    dryRun: true,
    destination: target.label,
    databaseExists: held.exists,
    schemaVersion: held.version,
    migrations: MIGRATIONS.filter((m) => m.version > held.version).map((m) => ({
      version: m.version,
      description: m.description,
    })),
    organization: { id: org.id, name: org.name },
    recomputeDays:
      held.meta.organization_id && tz !== org.reportingTimeZone
        ? { from: tz ?? null, to: org.reportingTimeZone }
        : null,
    kinds: syncPlan(kinds, held.states, {
      fromStart: Boolean(o.fromStart),
      full: Boolean(o.full),
      limit: o.limit ?? LIMITS.feedLimitMax,
    }),
  };
  if (ctx.io.json) ctx.io.outJson(plan);
  else printList(ctx.io, plan.kinds, COLUMNS);
  ctx.io.err(summaryLine(plan));
  return plan;
}

function summaryLine(p: SyncDryRun): string {
  const db = p.databaseExists
    ? p.migrations.length
      ? `would apply schema migration${p.migrations.length > 1 ? "s" : ""} ${p.migrations.map((m) => m.version).join(", ")} (to version ${LATEST_SCHEMA_VERSION}), then`
      : `schema version ${p.schemaVersion}; would`
    : "does not exist: a run would create it with the schema, then";
  const fresh = p.kinds.filter((k) => k.start === "beginning").length;
  const tz = p.recomputeDays
    ? ` The reporting time zone changed (${p.recomputeDays.from ?? "unknown"} to ${p.recomputeDays.to}): a run would first recompute the day of every redemption.`
    : "";
  return `Dry run: ${p.destination} ${db} read ${p.kinds.length} feeds and lists for ${p.organization.name} (${fresh} from the beginning, ${p.kinds.length - fresh} from a checkpoint).${tz} Nothing was written.`;
}
