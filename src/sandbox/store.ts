// The sandbox's state: its shape (the records below) and SandboxStore, the one typed store over
// SQLite (db.ts). Each collection is a table (organizations, keys, brands, offers, creators,
// campaigns, links, short codes, stats tokens, jobs, webhook endpoints and deliveries, events,
// traffic); handlers read records (frozen) and write them back through put/edit, inside the one
// transaction of their request (server.ts). The logic lives in domain/.
import { closeSync, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import type { AssignmentScope, JobStatus } from "../spec/links.js";
import type { CampaignStatus } from "../spec/campaigns.js";
import type { Creator } from "../spec/creators.js";
import type { EventType } from "../spec/events.js";
import type { Offer } from "../spec/offers.js";
import type { FailureCategory } from "../spec/webhooks.js";
import { UsageError } from "../errors.js";
import { loadNative, type NativeUse } from "../io/native.js";
import { createTableSql, type Database, SqlDb, Table, type TableDef, tableStats } from "./db.js";
import { EVENTS_SCHEMA, EVENTS_STATS, EventLog } from "./db-events.js";
import { clearTraffic, StoredTraffic, TRAFFIC_SCHEMA } from "./db-traffic.js";
import type { Traffic } from "./domain/traffic.js";

export type { EventEnvelope } from "./db-events.js";

export interface Organization {
  id: string;
  name: string;
  reportingTimeZone: string;
  /** false: every key of the organization answers 401. */
  active: boolean;
  /** Emails that receive supply alerts; supply events exist only when this is non-empty. */
  alertRecipients: string[];
}

export interface KeyRecord {
  key: string;
  name: string;
  orgId: string;
  canWrite: boolean;
  revoked: boolean;
}

export interface BrandRecord {
  id: string;
  name: string;
  /** false once the organization lost access to the brand (its campaigns become view-only). */
  access: boolean;
}

// ---- campaigns area ------------------------------------------------------------------------

export interface CampaignRecord {
  id: string;
  /** Creation sequence within the organization: the tie-breaker of "newest first". */
  seq: number;
  externalReference: string | null;
  name: string;
  status: CampaignStatus;
  /** Offer snapshot at creation; the view prefers the live offer's title and brand name. */
  offer: { baseGs1: string; title: string | null; brand: { id: string; name: string } };
  dates: { from: string; through: string };
  retailer: { emailDomain: string; name: string | null } | null;
  /** Canonical decimal text (see spec/campaigns.ts canonicalDecimal). */
  commission: { rate: string; estimatedUnitSalePrice: string };
  /** Mutable all-time counters; remaining is derived. */
  codes: { limit: number; issued: number; redeemed: number; testCodes: number };
  /** false once the first code is prepared (set by the traffic area). */
  canChangeRetailer: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface LinkRecord {
  externalId: string;
  campaignId: string;
  /** `ABCD-2345`, unique across the sandbox. */
  shortCode: string;
  /** Secret path part of statsUrl. */
  statsToken: string;
  active: boolean;
  assignedAt: string;
  deactivatedAt: string | null;
}

export interface JobRecord {
  id: string;
  campaignId: string;
  status: JobStatus;
  scope: AssignmentScope;
  totalCount: number;
  assignedCount: number;
  failedCount: number;
  lastError: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  // Internal progress (persisted so a restarted sandbox resumes the job):
  /** Creators to link, in processing order. */
  pending: string[];
  /** Index of the next pending id. */
  cursor: number;
  /** Ids unmatched at selection (unknown or inactive); counted as failed when processing starts. */
  unmatchedIds: string[];
  /** Ids that could not be linked (unmatched included), in the order found. */
  failedIds: string[];
  /** Set by the fail-next-job control route: this job fails part-way. */
  failPlanned: boolean;
  /**
   * Sandbox-clock ms when the next processing step is due (domain/jobs.ts); null once finished.
   * Absent in jobs stored before it existed: due at once.
   */
  nextStepAtMs: number | null;
}

// ---- webhooks area -------------------------------------------------------------------------

export interface EndpointRecord {
  id: string;
  url: string;
  eventTypes: EventType[];
  active: boolean;
  failingSince: string | null;
  lastDeliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Secrets live only here (and in the 0600 snapshot); they are returned only on create and rotate. */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAtMs: number | null;
}

export interface DeliveryRecord {
  id: string;
  endpointId: string;
  /** Creation order across the organization (newest first = highest seq). */
  seq: number;
  eventId: string;
  eventType: string;
  occurredAt: string;
  sample: boolean;
  /** The envelope exactly as it is sent (serialized once, when queued). */
  body: string;
  attempts: number;
  lastAttemptAt: string | null;
  /** Sandbox-clock ms when the next attempt is due; null once delivered or finally failed. */
  nextAttemptAtMs: number | null;
  deliveredAt: string | null;
  failedAt: string | null;
  lastStatusCode: number | null;
  lastFailureCategory: FailureCategory | null;
}

// ---- the store ------------------------------------------------------------------------------

/** The database file of a data dir. */
export const DB_FILE = "sandbox.db";
/** libsql keeps the sandbox's state, in memory or in a data dir (src/io/native.ts when it does not load). */
const LIBSQL_FOR_SANDBOX: NativeUse = {
  neededFor: "the sandbox (the embedded one and sandbox start), which keeps its state in SQLite",
  without:
    "every command against your service (a profile from partner-cli login, or PARTNER_API_KEY with PARTNER_BASE_URL), and a sandbox served from another machine (partner-cli sandbox start there, reached with PARTNER_BASE_URL)",
};
/** Schema version, in PRAGMA user_version (0: a new file). */
const FORMAT = 1;

const bool = (v: boolean) => (v ? 1 : 0);
const T = {
  organizations: { name: "organizations" },
  keys: { name: "api_keys" },
  brands: { name: "brands" },
  offers: { name: "offers" },
  creators: {
    name: "creators",
    cols: [
      { name: "active", type: "INTEGER", of: (c: Creator) => bool(c.active) },
      { name: "updated_ms", type: "INTEGER", of: (c: Creator) => Date.parse(c.updatedAt) },
    ],
    indexes: [["active", "k"], ["updated_ms"]],
  },
  campaigns: {
    name: "campaigns",
    cols: [{ name: "external_reference", type: "TEXT", of: (c: CampaignRecord) => c.externalReference }],
    indexes: [["external_reference"]],
  },
  links: {
    name: "links",
    cols: [{ name: "active", type: "INTEGER", of: (l: LinkRecord) => bool(l.active) }],
    indexes: [["active", "k"]],
  },
  shortCodes: { name: "short_codes" },
  statsTokens: { name: "stats_tokens" },
  jobs: {
    name: "jobs",
    cols: [{ name: "status", type: "TEXT", of: (j: JobRecord) => j.status }],
    indexes: [["status"]],
  },
  failNextJob: { name: "fail_next_job" },
  endpoints: { name: "webhook_endpoints" },
  deliveries: {
    name: "webhook_deliveries",
    cols: [
      { name: "endpoint_id", type: "TEXT", of: (d: DeliveryRecord) => d.endpointId },
      { name: "next_attempt_ms", type: "INTEGER", of: (d: DeliveryRecord) => d.nextAttemptAtMs },
    ],
    indexes: [["endpoint_id"], ["next_attempt_ms"]],
  },
  counters: { name: "counters" },
} satisfies Record<string, TableDef>;

/** Where a short code or stats token leads (unique across the sandbox). */
export interface LinkRef {
  orgId: string;
  campaignId: string;
  externalId: string;
}

/** The campaigns area of an organization: campaigns, their links and assignment jobs. */
export interface CampaignsArea {
  campaigns: Table<CampaignRecord>;
  /** A campaign's links, by externalId. */
  links: { get(campaignId: string): Table<LinkRecord> };
  jobs: Table<JobRecord>;
  /** Campaign ids whose next assignment job is to fail (control route). */
  failNextJob: Table<true>;
  /** Creation sequence of campaigns (the tie-breaker of "newest first"). */
  nextSeq(): number;
}

export interface WebhooksArea {
  endpoints: Table<EndpointRecord>;
  deliveries: Table<DeliveryRecord>;
  nextSeq(): number;
}

/** One organization: its record and its collections. */
export class OrgState {
  readonly brands: Table<BrandRecord>;
  readonly creators: Table<Creator>;
  readonly offers: Table<Offer>;
  readonly events: EventLog;
  readonly campaigns: CampaignsArea;
  readonly webhooks: WebhooksArea;
  private readonly linkTables = new Map<string, Table<LinkRecord>>();
  private stored: StoredTraffic | undefined;

  constructor(
    readonly store: SandboxStore,
    readonly id: string,
  ) {
    const table = <V>(def: TableDef, scope = "") => new Table<V>(store.sql, def, id, scope);
    this.brands = table(T.brands);
    this.creators = table(T.creators);
    this.offers = table(T.offers);
    this.events = new EventLog(store.sql, id);
    const counter = (name: string) => () => this.nextCount(name);
    this.campaigns = {
      campaigns: table(T.campaigns),
      links: { get: (campaignId) => this.linksOf(campaignId) },
      jobs: table(T.jobs),
      failNextJob: table(T.failNextJob),
      nextSeq: counter("campaigns"),
    };
    this.webhooks = {
      endpoints: table(T.endpoints),
      deliveries: table(T.deliveries),
      nextSeq: counter("deliveries"),
    };
  }

  /** The organization's record (frozen; change it with updateOrg). */
  get org(): Organization {
    const o = this.store.organizations.get(this.id);
    if (!o) throw new Error(`no organization ${this.id}`);
    return o;
  }

  updateOrg(fn: (o: Organization) => void): Organization {
    return this.store.organizations.edit(this.id, fn)!;
  }

  linksOf(campaignId: string): Table<LinkRecord> {
    let t = this.linkTables.get(campaignId);
    if (!t) {
      t = new Table<LinkRecord>(this.store.sql, T.links, this.id, campaignId);
      this.linkTables.set(campaignId, t);
    }
    return t;
  }

  /** The organization's traffic, loaded on first use and written before each commit. */
  traffic(): Traffic {
    if (!this.stored) {
      this.stored = StoredTraffic.load(this.store.sql, this.id);
      this.store.trafficLoaded(this.stored);
    }
    return this.stored.traffic;
  }

  private nextCount(name: string): number {
    const t = new Table<number>(this.store.sql, T.counters, this.id);
    const n = (t.get(name) ?? 0) + 1;
    t.set(name, n);
    return n;
  }

  /** Deletes every record of the organization (reset). */
  clear(): void {
    for (const def of Object.values(T))
      this.store.sql.stmt(`DELETE FROM ${def.name} WHERE org = ?`).run(this.id);
    this.events.clear();
    clearTraffic(this.store.sql, this.id);
    this.stored = undefined;
  }
}

/** The one store of a sandbox: a SQLite database, in memory or in a data dir. */
export class SandboxStore {
  readonly sql: SqlDb;
  readonly organizations: Table<Organization>;
  readonly keys: Table<KeyRecord>;
  readonly shortCodes: Table<LinkRef>;
  readonly statsTokens: Table<LinkRef>;
  private readonly meta: Table<unknown>;
  private readonly states = new Map<string, OrgState>();
  private readonly traffics = new Set<StoredTraffic>();
  /** The organizations, by id (Map-like reads). */
  readonly orgs: {
    get(id: string): OrgState | undefined;
    values(): OrgState[];
    keys(): string[];
  };

  private constructor(
    db: Database,
    readonly path: string,
  ) {
    this.sql = new SqlDb(db);
    this.organizations = new Table(this.sql, T.organizations, "");
    this.keys = new Table(this.sql, T.keys, "");
    this.shortCodes = new Table(this.sql, T.shortCodes, "");
    this.statsTokens = new Table(this.sql, T.statsTokens, "");
    this.meta = new Table(this.sql, T.counters, "", "meta");
    this.sql.beforeCommit.push(() => {
      for (const t of this.traffics) t.flush();
    });
    const stateOf = (id: string) => {
      let s = this.states.get(id);
      if (!s) {
        s = new OrgState(this, id);
        this.states.set(id, s);
      }
      return s;
    };
    this.orgs = {
      get: (id) => (this.organizations.has(id) ? stateOf(id) : undefined),
      values: () => this.organizations.keys().map(stateOf),
      keys: () => this.organizations.keys(),
    };
  }

  /**
   * Opens the store: `:memory:`, or the database of a data dir (created when new). A data dir of the
   * previous format (files sandbox-state.json, sandbox-segments/) is refused with how to rebuild it.
   */
  static async open(dataDir?: string): Promise<SandboxStore> {
    const path = dataDir ? join(dataDir, DB_FILE) : ":memory:";
    if (dataDir && !existsSync(path) && existsSync(join(dataDir, "sandbox-state.json")))
      throw new UsageError(
        `The sandbox data in ${dataDir} is in the storage format of an earlier partner-cli (sandbox-state.json); this version keeps it in SQLite (${DB_FILE}).`,
        `Start from a new seed: rm -r "${join(dataDir, "sandbox-state.json")}" "${join(dataDir, "sandbox-segments")}" "${dataDir}"/sandbox-journal-*.ndjson, then run the command again (or use another --data-dir).`,
      );
    const { default: Ctor } = (await loadNative(
      "libsql",
      () => import("libsql"),
      LIBSQL_FOR_SANDBOX,
    )) as unknown as {
      default: new (path: string, opts?: { timeout?: number }) => Database;
    };
    let db: Database;
    try {
      // A new database file is private (SQLite gives its -wal and -shm files the same mode).
      if (dataDir && !existsSync(path)) closeSync(openSync(path, "wx", 0o600));
      db = new Ctor(path, { timeout: 5000 });
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = FULL");
      // A 32 MiB page cache (the default is 2 MiB): a large transaction (a simulate's millions of
      // events) spills and rewrites fewer pages, and memory stays bounded at any size.
      db.exec("PRAGMA cache_size = -32768");
      db.exec("PRAGMA temp_store = MEMORY");
    } catch (err) {
      throw new UsageError(
        `The sandbox data in ${path} cannot be opened (${(err as Error).message}).`,
        "Move the data directory aside (or delete it) to start the sandbox from its seed.",
      );
    }
    const version = Number((db.prepare("PRAGMA user_version").raw().get() as unknown[])[0]);
    if (version > FORMAT)
      throw new UsageError(
        `The sandbox data in ${path} was written by a newer partner-cli (format ${version}).`,
        "Use that version, or another --data-dir.",
      );
    if (version < FORMAT) {
      const ddl = [
        ...Object.values(T).flatMap((d) => createTableSql(d)),
        ...EVENTS_SCHEMA,
        ...TRAFFIC_SCHEMA,
        `PRAGMA user_version = ${FORMAT}`,
      ];
      db.exec(`BEGIN; ${ddl.join(";\n")}; ANALYZE event_orgs; DELETE FROM sqlite_stat1;`);
      const stat = db.prepare("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)");
      for (const row of [...Object.values(T).flatMap((d) => tableStats(d)), ...EVENTS_STATS])
        stat.run(...row);
      db.exec("COMMIT; ANALYZE sqlite_schema;");
    }
    return new SandboxStore(db, path);
  }

  /** True when the store holds no organization yet (a new data dir: seed it). */
  get isEmpty(): boolean {
    return this.organizations.size === 0;
  }

  write<T>(fn: () => T): T {
    return this.sql.write(fn);
  }

  trafficLoaded(t: StoredTraffic): void {
    this.traffics.add(t);
  }

  get clockOffsetMs(): number {
    return (this.meta.get("clockOffsetMs") as number | undefined) ?? 0;
  }
  set clockOffsetMs(ms: number) {
    this.meta.set("clockOffsetMs", ms);
  }

  /** The keys `sandbox start` prints. */
  get defaultKeys(): { writeKey: string; readOnlyKey: string } {
    return (
      (this.meta.get("defaultKeys") as { writeKey: string; readOnlyKey: string } | undefined) ?? {
        writeKey: "",
        readOnlyKey: "",
      }
    );
  }
  set defaultKeys(k: { writeKey: string; readOnlyKey: string }) {
    this.meta.set("defaultKeys", k);
  }

  /** Set once a simulate ran with events left out (`--no-events`): the event log is incomplete. */
  get eventsIncomplete(): { since: string; items: number } | undefined {
    return this.meta.get("eventsIncomplete") as { since: string; items: number } | undefined;
  }
  set eventsIncomplete(v: { since: string; items: number } | undefined) {
    if (v === undefined) this.meta.delete("eventsIncomplete");
    else this.meta.set("eventsIncomplete", v);
  }

  /** Deletes everything (reset), keeping nothing but the connection. */
  clear(): void {
    for (const s of this.orgs.values()) s.clear();
    for (const def of Object.values(T)) {
      this.sql.stmt(`DELETE FROM ${def.name}`).run();
      this.sql.wrote(def.name);
    }
    this.sql.stmt("DELETE FROM events").run();
    this.states.clear();
    this.traffics.clear();
  }

  close(): void {
    this.sql.db.close();
  }
}

/** The campaigns area (campaigns, their links and assignment jobs). */
export function campaignsArea(state: OrgState): CampaignsArea {
  return state.campaigns;
}

/** The organization's traffic, loaded on first use. */
export function trafficOf(state: OrgState): Traffic {
  return state.traffic();
}

/** The webhooks area (endpoints and deliveries). */
export function webhooksArea(state: OrgState): WebhooksArea {
  return state.webhooks;
}

/** The webhooks area, for the delivery engine's scans. */
export function existingWebhooksArea(state: OrgState): WebhooksArea | undefined {
  return state.webhooks;
}
