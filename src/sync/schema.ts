// The database schema of `sync` (docs/database.md shows it): one table per resource, named after it
// in snake_case, typed columns, primary keys, indexes for the obvious joins, and views for the common
// questions. Versioned migrations build it; `schema_version` records which ran. A database whose
// version is newer than LATEST_SCHEMA_VERSION was written by a newer partner-cli and is refused.
//
// Column types are logical and mapped per dialect: identifiers and other text as text; money and
// rates as numeric (PostgreSQL) or canonical decimal text (SQLite); timestamps as timestamptz or
// ISO-8601 text; calendar days as date or YYYY-MM-DD text; booleans as boolean or 0/1; JSON as jsonb
// or JSON text.

export type Dialect = "sqlite" | "postgres";
export type ColumnType = "text" | "timestamp" | "date" | "money" | "int" | "bigint" | "bool" | "json";

export interface Column {
  name: string;
  type: ColumnType;
  notNull?: boolean;
}

export interface TableSpec {
  name: TableName;
  columns: readonly Column[];
  primaryKey: readonly string[];
  indexes: readonly { name: string; columns: readonly string[] }[];
  /**
   * SQLite only: an immutable, feed-ordered unique key that upserts use instead of the primary key.
   * The primary key is then a unique index (`<table>_pk`) rather than part of the table, so a first
   * load can build it once at the end instead of inserting a million random ids into it one by one.
   */
  sqliteFeedKey?: { name: string; columns: readonly string[] };
}

export type TableName = "redemptions" | "events" | "creators" | "campaigns" | "offers" | "share_links";

const c = (name: string, type: ColumnType, notNull = false): Column => ({ name, type, notNull });

// Version 1. A later version adds an ALTER in its own migration and appends the column here.
export const TABLES: Record<TableName, TableSpec> = {
  redemptions: {
    name: "redemptions",
    columns: [
      c("id", "text", true),
      c("serialized_gs1", "text", true),
      c("redeemed_at", "timestamp", true),
      /** The day of redeemed_at in the organization's reporting time zone (report days use it). */
      c("redeemed_day", "date", true),
      c("recorded_at", "timestamp", true),
      c("counting_state", "text", true),
      c("excluded_at", "timestamp"),
      c("exclusion_reason", "text"),
      c("campaign_id", "text", true),
      c("campaign_external_reference", "text"),
      c("campaign_name", "text"),
      c("base_gs1", "text"),
      c("offer_title", "text"),
      c("brand_id", "text"),
      c("brand_name", "text"),
      c("creator_external_id", "text"),
      c("creator_name", "text"),
      c("retailer_email_domain", "text"),
      c("retailer_name", "text"),
    ],
    primaryKey: ["id"],
    indexes: [
      {
        name: "redemptions_campaign_creator_day",
        columns: ["campaign_id", "creator_external_id", "redeemed_day"],
      },
      { name: "redemptions_creator", columns: ["creator_external_id"] },
    ],
    // recordedAt never changes (spec: Redemption) and orders the feed: (recorded_at, id) identifies a
    // redemption as id does, and new rows land at its end.
    sqliteFeedKey: { name: "redemptions_feed_order", columns: ["recorded_at", "id"] },
  },
  events: {
    name: "events",
    columns: [
      c("id", "text", true),
      c("type", "text", true),
      c("occurred_at", "timestamp", true),
      c("sample", "bool", true),
      /** What the event is about: redemption, code (claim), campaign or assignment_job, and its id. */
      c("resource_type", "text"),
      c("resource_id", "text"),
      c("campaign_id", "text"),
      c("creator_external_id", "text"),
      c("data", "json", true),
    ],
    primaryKey: ["id"],
    indexes: [
      { name: "events_type_occurred", columns: ["type", "occurred_at"] },
      { name: "events_resource", columns: ["resource_type", "resource_id", "occurred_at"] },
      { name: "events_campaign", columns: ["campaign_id"] },
    ],
  },
  creators: {
    name: "creators",
    columns: [
      c("external_id", "text", true),
      c("name", "text", true),
      c("email", "text"),
      c("handle", "text"),
      c("active", "bool", true),
      c("created_at", "timestamp"),
      c("updated_at", "timestamp"),
    ],
    primaryKey: ["external_id"],
    indexes: [],
  },
  campaigns: {
    name: "campaigns",
    columns: [
      c("id", "text", true),
      c("external_reference", "text"),
      c("name", "text", true),
      c("status", "text", true),
      c("base_gs1", "text"),
      c("offer_title", "text"),
      c("brand_id", "text"),
      c("brand_name", "text"),
      c("date_from", "date"),
      c("date_through", "date"),
      c("retailer_email_domain", "text"),
      c("retailer_name", "text"),
      c("commission_rate", "money"),
      c("estimated_unit_sale_price", "money"),
      c("estimated_per_redemption", "money"),
      /** commission_rate x 10,000 and estimated_unit_sale_price x 100, exact integers (the views' arithmetic). */
      c("commission_rate_e4", "bigint"),
      c("unit_price_cents", "bigint"),
      c("codes_limit", "bigint"),
      c("codes_issued", "bigint"),
      c("codes_redeemed", "bigint"),
      c("codes_test", "bigint"),
      c("codes_remaining", "bigint"),
      c("allowed_statuses", "json"),
      c("can_change_retailer", "bool"),
      c("created_at", "timestamp"),
      c("updated_at", "timestamp"),
    ],
    primaryKey: ["id"],
    indexes: [
      { name: "campaigns_brand", columns: ["brand_id"] },
      { name: "campaigns_offer", columns: ["base_gs1"] },
    ],
  },
  offers: {
    name: "offers",
    columns: [
      c("base_gs1", "text", true),
      c("brand_id", "text"),
      c("brand_name", "text"),
      c("title", "text"),
      c("description", "text"),
      c("state", "text"),
      c("can_distribute", "bool"),
      c("savings_cents", "bigint"),
      c("savings_display", "text"),
      c("product_barcodes", "json"),
      c("campaign_date_from", "date"),
      c("campaign_date_through", "date"),
      c("redemption_date_from", "date"),
      c("redemption_date_through", "date"),
      c("codes_available", "bigint"),
      c("retailer_choice_required", "bool"),
      c("allowed_retailers", "json"),
      c("last_updated_at", "timestamp"),
    ],
    primaryKey: ["base_gs1"],
    indexes: [{ name: "offers_brand", columns: ["brand_id"] }],
  },
  share_links: {
    name: "share_links",
    columns: [
      c("campaign_id", "text", true),
      c("creator_external_id", "text", true),
      c("creator_name", "text"),
      c("share_url", "text"),
      c("short_code", "text"),
      c("stats_url", "text"),
      c("active", "bool"),
      c("active_on_roster", "bool"),
      c("assigned_at", "timestamp"),
      c("deactivated_at", "timestamp"),
    ],
    primaryKey: ["campaign_id", "creator_external_id"],
    indexes: [{ name: "share_links_creator", columns: ["creator_external_id"] }],
  },
};

export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

/** Tables of the copy's own bookkeeping (not resources). */
export const META_TABLES = ["schema_version", "sync_meta", "sync_state"] as const;

export const VIEW_NAMES = [
  "counted_redemptions_daily",
  "commission_by_creator_campaign",
  "commission_by_campaign",
  "latest_events",
] as const;

function sqlType(t: ColumnType, d: Dialect): string {
  if (d === "sqlite") {
    return t === "int" || t === "bigint" || t === "bool" ? "INTEGER" : "TEXT";
  }
  return {
    text: "text",
    timestamp: "timestamptz",
    date: "date",
    money: "numeric",
    int: "integer",
    bigint: "bigint",
    bool: "boolean",
    json: "jsonb",
  }[t];
}

/** SQLite: the unique index that stands for the primary key of a table with a feed key. */
export function sqlitePkIndex(t: TableSpec): string {
  return `CREATE UNIQUE INDEX IF NOT EXISTS ${t.name}_pk ON ${t.name} (${t.primaryKey.join(", ")})`;
}

/** The columns an upsert's ON CONFLICT names. */
export function conflictKey(t: TableSpec, d: Dialect): readonly string[] {
  return d === "sqlite" && t.sqliteFeedKey ? t.sqliteFeedKey.columns : t.primaryKey;
}

function createTable(t: TableSpec, d: Dialect): string[] {
  const cols = t.columns.map(
    (col) => `  ${col.name} ${sqlType(col.type, d)}${col.notNull ? " NOT NULL" : ""}`,
  );
  const feedKey = d === "sqlite" ? t.sqliteFeedKey : undefined;
  if (!feedKey) cols.push(`  PRIMARY KEY (${t.primaryKey.join(", ")})`);
  return [
    `CREATE TABLE ${t.name} (\n${cols.join(",\n")}\n)${d === "sqlite" ? " STRICT" : ""}`,
    ...(feedKey
      ? [sqlitePkIndex(t), `CREATE UNIQUE INDEX ${feedKey.name} ON ${t.name} (${feedKey.columns.join(", ")})`]
      : []),
    ...secondaryIndexes(t),
  ];
}

/** The CREATE INDEX statements of a table's secondary indexes (IF NOT EXISTS: also to rebuild them). */
export function secondaryIndexes(t: TableSpec): string[] {
  return t.indexes.map(
    (ix) => `CREATE INDEX IF NOT EXISTS ${ix.name} ON ${t.name} (${ix.columns.join(", ")})`,
  );
}

/**
 * Commission as the service computes it (Report field semantics 9): rate x unit price x counted
 * redemptions, rounded once to four decimals, ties to even. With the rate scaled by 10^4 and the
 * price by 10^2 the product x is an exact integer in units of 10^-6 dollars (at most
 * 10^4 x 10^7 x 10^7 = 10^18 for a campaign's 10,000,000 codes: within a 64-bit integer), so the
 * rounding is done on integers in both dialects: q = x / 100, plus one when the remainder is above
 * half, or exactly half and q is odd. q is the commission in units of 10^-4 dollars.
 */
export function roundedQ(x: string): string {
  return `(${x}) / 100 + CASE WHEN (${x}) % 100 > 50 OR ((${x}) % 100 = 50 AND ((${x}) / 100) % 2 = 1) THEN 1 ELSE 0 END`;
}

export function moneyFromQ(q: string, d: Dialect): string {
  return d === "sqlite"
    ? `CASE WHEN ${q} IS NULL THEN NULL ELSE printf('%d.%04d', ${q} / 10000, ${q} % 10000) END`
    : `round(${q}::numeric / 10000, 4)`;
}

function views(d: Dialect): string[] {
  return [
    `CREATE VIEW counted_redemptions_daily AS
SELECT campaign_id, creator_external_id, redeemed_day AS day, COUNT(*) AS counted_redemptions
FROM redemptions
WHERE counting_state = 'counted'
GROUP BY campaign_id, creator_external_id, redeemed_day`,
    `CREATE VIEW commission_by_creator_campaign AS
SELECT campaign_id, campaign_name, creator_external_id, counted_redemptions, commission_rate,
  estimated_unit_sale_price, ${moneyFromQ("q", d)} AS estimated_commission
FROM (
  SELECT r.campaign_id, c.name AS campaign_name, r.creator_external_id, r.counted_redemptions,
    c.commission_rate, c.estimated_unit_sale_price,
    ${roundedQ("c.commission_rate_e4 * c.unit_price_cents * r.counted_redemptions")} AS q
  FROM (
    SELECT campaign_id, creator_external_id, COUNT(*) AS counted_redemptions
    FROM redemptions WHERE counting_state = 'counted'
    GROUP BY campaign_id, creator_external_id
  ) r
  LEFT JOIN campaigns c ON c.id = r.campaign_id
) t`,
    `CREATE VIEW commission_by_campaign AS
SELECT campaign_id, campaign_name, counted_redemptions, commission_rate, estimated_unit_sale_price,
  ${moneyFromQ("q", d)} AS estimated_commission
FROM (
  SELECT c.id AS campaign_id, c.name AS campaign_name, COALESCE(r.counted_redemptions, 0) AS counted_redemptions,
    c.commission_rate, c.estimated_unit_sale_price,
    ${roundedQ("c.commission_rate_e4 * c.unit_price_cents * COALESCE(r.counted_redemptions, 0)")} AS q
  FROM campaigns c
  LEFT JOIN (
    SELECT campaign_id, COUNT(*) AS counted_redemptions
    FROM redemptions WHERE counting_state = 'counted'
    GROUP BY campaign_id
  ) r ON r.campaign_id = c.id
) t`,
    `CREATE VIEW latest_events AS
SELECT resource_type, resource_id, id AS event_id, type, occurred_at, campaign_id, creator_external_id, data
FROM (
  SELECT e.*, ROW_NUMBER() OVER (PARTITION BY resource_type, resource_id ORDER BY occurred_at DESC, id DESC) AS rn
  FROM events e
  WHERE resource_id IS NOT NULL
) ranked
WHERE rn = 1`,
  ];
}

function metaTables(d: Dialect): string[] {
  const ts = sqlType("timestamp", d);
  const strict = d === "sqlite" ? " STRICT" : "";
  return [
    `CREATE TABLE sync_meta (\n  key TEXT NOT NULL PRIMARY KEY,\n  value TEXT\n)${strict}`,
    `CREATE TABLE sync_state (
  feed TEXT NOT NULL PRIMARY KEY,
  cursor TEXT,
  skip_ids TEXT NOT NULL,
  generation ${sqlType("bigint", d)} NOT NULL,
  items ${sqlType("bigint", d)} NOT NULL,
  last_synced_at ${ts},
  last_completed_at ${ts},
  since ${ts}
)${strict}`,
  ];
}

export interface Migration {
  version: number;
  description: string;
  statements(d: Dialect): string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "resource tables, views, sync bookkeeping",
    statements: (d) => [
      ...metaTables(d),
      ...TABLE_NAMES.flatMap((n) => createTable(TABLES[n], d)),
      ...views(d),
    ],
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The schema_version table itself (created before the first migration runs). */
export function schemaVersionTable(d: Dialect): string {
  return `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER NOT NULL PRIMARY KEY,
  description TEXT NOT NULL,
  applied_at ${sqlType("timestamp", d)} NOT NULL
)${d === "sqlite" ? " STRICT" : ""}`;
}
