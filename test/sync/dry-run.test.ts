// sync --dry-run into each destination (SQLite always; PostgreSQL with a server): per kind, from the
// checkpoints, where the read would start and what it would read and write; nothing written (no
// database file, no lock file, no schema, no checkpoint moved), only GETs sent.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "libsql";
import { describe, expect, it } from "vitest";
import { expectOnlyReads, filesUnder } from "../helpers/dry-run.js";
import { useFeedCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { destinationKinds, PG_URL, sqliteDest, type TestDest, useDests } from "./destinations.js";

const box = useSandbox();
useFeedCampaign(box, { claims: 300, redemptions: 250, exclusions: 5, days: 2, seed: 7 });
const env = (configDir = tempDir()) => ({
  PARTNER_CLI_CONFIG_DIR: configDir,
  PARTNER_BASE_URL: box.url,
  PARTNER_API_KEY: box.writeKey,
});
const sync = (to: string, args: string[], configDir?: string) =>
  runIn(["sync", "--to", to, ...args], { env: env(configDir) });
const plan = (r: { stdout: string }) => JSON.parse(r.stdout) as { kinds: any[]; [k: string]: any };
const byFeed = (p: { kinds: any[] }) => Object.fromEntries(p.kinds.map((k) => [k.feed, k]));

describe.each(destinationKinds())("sync --dry-run into %s", (kind) => {
  const fresh = useDests(kind);
  const tables = async (d: TestDest) =>
    kind === "sqlite"
      ? await d.query("SELECT name FROM sqlite_master ORDER BY name")
      : await d.query(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1",
        );
  const states = (d: TestDest) => d.query("SELECT * FROM sync_state ORDER BY feed");

  it("after a run: continues from each checkpoint it names, writes nothing", async () => {
    const d = await fresh();
    // Spawned: an in-process run's SQLite connection may checkpoint its WAL whenever it is collected.
    const first = await box.cli(["sync", "--to", d.to, "--only", "creators,redemptions", "--limit", "100"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const held = await states(d);
    const bytes = d.kind === "sqlite" ? filesUnder(join((d as any).path, "..")) : undefined;
    const cursor = (await d.query("SELECT cursor FROM sync_state WHERE feed = 'redemptions'"))[0]![0];
    const since = (await d.query("SELECT since FROM sync_state WHERE feed = 'creators'"))[0]![0];
    expect(cursor).toBeTruthy();

    const r = await sync(d.to, ["--dry-run", "--json", "--verbose", "--limit", "100"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const p = plan(r);
    expect(p).toMatchObject({ dryRun: true, databaseExists: true, schemaVersion: 1, migrations: [] });
    const f = byFeed(p);
    expect(Object.keys(f)).toEqual([
      "offers",
      "campaigns",
      "creators",
      "share_links",
      "redemptions",
      "corrections:redemption.excluded",
      "corrections:redemption.restored",
      "events",
    ]);
    expect(f.redemptions).toMatchObject({
      start: "checkpoint",
      read: { method: "GET", path: "/redemptions", query: { after: cursor, limit: 100 } },
      write: { table: "redemptions", mode: "upsert" },
      checkpoint: { cursor, items: 250 },
    });
    expect(f.creators).toMatchObject({
      start: "checkpoint",
      read: { path: "/creators", query: { updatedSince: new Date(String(since)).toISOString() } },
    });
    expect(f.events).toMatchObject({ start: "beginning", checkpoint: null, write: { table: "events" } });
    expect(f.offers.start).toBe("beginning");
    expect(r.stderr).toMatch(/Dry run: .* Nothing was written\./);
    expectOnlyReads(r.stderr);
    expect(await states(d)).toEqual(held);
    if (bytes) expect(filesUnder(join((d as any).path, ".."))).toEqual(bytes);

    // --from-start and --full: every feed from its beginning, the whole roster; still nothing written.
    const all = await sync(d.to, ["--dry-run", "--json", "--from-start", "--full"]);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(plan(all).kinds.every((k: any) => k.start === "beginning")).toBe(true);
    expect(byFeed(plan(all)).redemptions.read.query.after).toBeUndefined();
    expect(await states(d)).toEqual(held);
  });

  it("a new destination: every kind from the beginning, the schema not created", async () => {
    const d = await fresh();
    const before = await tables(d);
    const r = await sync(d.to, ["--dry-run", "--only", "events"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^kind\tfeed\tstart\tread\twrite\twhy$/m);
    expect(r.stdout).toMatch(/^events\tevents\tbeginning\tGET \/events\?limit=1000\tevents \(insert\)\t/m);
    expect(r.stderr).toMatch(/would apply schema migration 1|would create it with the schema/);
    expect(await tables(d)).toEqual(before);
  });
});

describe("sync --dry-run: files", () => {
  it("a SQLite file that does not exist is not created, nor a lock file", async () => {
    const dir = tempDir();
    const configDir = tempDir();
    const r = await sync(`sqlite:${join(dir, "new.sqlite")}`, ["--dry-run", "--json"], configDir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(plan(r)).toMatchObject({ databaseExists: false, schemaVersion: 0, migrations: [{ version: 1 }] });
    expect(plan(r).kinds.every((k: any) => k.start === "beginning" && k.checkpoint === null)).toBe(true);
    expect(r.stderr).toMatch(/does not exist: a run would create it/);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(configDir, "locks"))).toBe(false);
  });

  it("the built CLI (SQLite in its worker thread): an existing copy's bytes unchanged, no file added", async () => {
    const d = sqliteDest();
    // Spawned, as above.
    const first = await box.cli(["sync", "--to", d.to, "--only", "offers,events"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const dir = join(d.path, "..");
    const before = filesUnder(dir);
    const r = await box.cli(["sync", "--to", d.to, "--dry-run", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(byFeed(r.json()).events.start).toBe("checkpoint");
    expect(filesUnder(dir)).toEqual(before);
  });

  it("a failing check exits 2 as a real run would, the files unchanged", async () => {
    const d = sqliteDest();
    const db = new Database(d.path);
    db.exec("CREATE TABLE creators (x TEXT)");
    db.close();
    const dir = join(d.path, "..");
    const before = filesUnder(dir);
    const foreign = await sync(d.to, ["--dry-run"]);
    expect(foreign.exitCode).toBe(2);
    expect(foreign.stderr).toMatch(/not created by partner-cli; nothing was written/);
    const kinds = await sync(d.to, ["--dry-run", "--only", "creators,nope"]);
    expect(kinds.exitCode).toBe(2);
    expect(kinds.stderr).toMatch(/--only: unknown kind "nope"/);
    expect(filesUnder(dir)).toEqual(before);
    writeFileSync(join(dir, "not-a-db.sqlite"), "hello");
    const notDb = await sync(`sqlite:${join(dir, "not-a-db.sqlite")}`, ["--dry-run"]);
    expect(notDb.exitCode).toBe(2);
    expect(readFileSync(join(dir, "not-a-db.sqlite"), "utf8")).toBe("hello");
  });

  it.runIf(Boolean(PG_URL))("PostgreSQL: a schema that does not exist is not created", async () => {
    const u = new URL(PG_URL!);
    const schema = `dry_${Date.now().toString(36)}`;
    u.searchParams.set("schema", schema);
    const r = await sync(u.toString(), ["--dry-run", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(plan(r)).toMatchObject({ databaseExists: true, schemaVersion: 0, migrations: [{ version: 1 }] });
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      const n = await c.query("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1", [schema]);
      expect(n.rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  });
});
