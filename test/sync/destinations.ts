// The two destinations of `sync` for tests: a SQLite file in a temp dir, and a fresh schema in the
// PostgreSQL server named by PARTNER_TEST_PG_URL. No mocks of either database.
//
// PostgreSQL tests run when PARTNER_TEST_PG_URL is set (.ci/run starts a server and sets it). On CI
// (CI=true) a missing URL is an error, never a skip; on a developer machine without a server the
// PostgreSQL tests are skipped and say why.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "libsql";
import pg from "pg";
import { tempDir } from "../helpers/sandbox.js";
import { afterAll } from "vitest";

export const PG_URL = process.env.PARTNER_TEST_PG_URL || undefined;

// Calendar days (date) as the text PostgreSQL prints, not a Date at local midnight.
pg.types.setTypeParser(1082, (v: string) => v);

if (!PG_URL && process.env.CI === "true")
  throw new Error(
    "CI=true but PARTNER_TEST_PG_URL is not set: the PostgreSQL tests of sync must run on CI (.ci/run starts a server).",
  );

let warned = false;
/** Whether to run the PostgreSQL cases; prints the reason once when they are skipped. */
export function pgAvailable(): boolean {
  if (!PG_URL && !warned) {
    warned = true;
    console.warn(
      "sync tests: PostgreSQL cases SKIPPED: PARTNER_TEST_PG_URL is not set (set it to a database URL, e.g. postgres://partner:secret@127.0.0.1:5432/partner_test, to run them).",
    );
  }
  return Boolean(PG_URL);
}

export type Cell = string | number | boolean | null;

export interface TestDest {
  kind: "sqlite" | "postgres";
  /** The --to value. */
  to: string;
  /** Rows of a query as arrays; timestamps as ISO text, numbers as numbers, booleans as 0/1 or true/false. */
  query(sql: string, params?: unknown[]): Promise<Cell[][]>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

export function sqliteDest(path = join(tempDir("pcli-sync-"), "copy.sqlite")): TestDest & { path: string } {
  let db: InstanceType<typeof Database> | undefined;
  const open = () => {
    db ??= new Database(path);
    return db;
  };
  return {
    kind: "sqlite",
    path,
    to: `sqlite:${path}`,
    async query(sql, params = []) {
      const st = open().prepare(sql);
      if (!st.reader) {
        st.run(...params);
        return [];
      }
      return st.raw(true).all(...params) as Cell[][];
    },
    async exec(sql) {
      open().exec(sql);
    },
    async close() {
      db?.close();
      db = undefined;
    },
  };
}

function normalize(v: unknown): Cell {
  if (v instanceof Date) return v.toISOString();
  if (v === null || v === undefined) return null;
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "bigint") return Number(v);
  return v as Cell;
}

/** A fresh schema in the test server; dropped by close(). */
export async function pgDest(): Promise<TestDest & { schema: string }> {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path TO ${schema}`);
  const u = new URL(PG_URL!);
  u.searchParams.set("schema", schema);
  return {
    kind: "postgres",
    schema,
    to: u.toString(),
    async query(sql, params = []) {
      const r = await client.query({ text: sql, values: params, rowMode: "array" });
      return r.rows.map((row: unknown[]) => row.map(normalize));
    },
    async exec(sql) {
      await client.query(sql);
    },
    async close() {
      await client.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
      await client.end();
    },
  };
}

/** Both destinations where available (PostgreSQL only with a server). */
export function destinationKinds(): ("sqlite" | "postgres")[] {
  return pgAvailable() ? ["sqlite", "postgres"] : ["sqlite"];
}

export async function makeDest(kind: "sqlite" | "postgres"): Promise<TestDest> {
  return kind === "sqlite" ? sqliteDest() : pgDest();
}

/** Destinations of one kind made by a file's tests (`fresh()`), closed after them. */
export function useDests(kind: "sqlite" | "postgres"): () => Promise<TestDest> {
  const dests: TestDest[] = [];
  afterAll(async () => {
    for (const d of dests) await d.close();
  });
  return async () => {
    const d = await makeDest(kind);
    dests.push(d);
    return d;
  };
}
