// sync status on each destination, and the cases around a sync that need their own arrangement: an
// outrun event-log window, a changed reporting time zone, the roster's incremental and full reads,
// and PostgreSQL connection failures that never show the password.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useFeedCampaign } from "../helpers/fixtures.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { destinationKinds, useDests, PG_URL, pgAvailable } from "./destinations.js";
import { allOf } from "./truth.js";
import { useSandbox } from "../helpers/harness.js";

describe.each(destinationKinds())("sync status and roster on %s", (kind) => {
  const box = useSandbox();
  useFeedCampaign(box, { claims: 400, redemptions: 300, exclusions: 5, days: 3, seed: 4 });
  const fresh = useDests(kind);
  const env = (configDir = tempDir()) => ({
    PARTNER_CLI_CONFIG_DIR: configDir,
    PARTNER_BASE_URL: box.url,
    PARTNER_API_KEY: box.writeKey,
  });
  const p = (i: number) => (kind === "sqlite" ? "?" : `$${i}`);

  it("reports rows, last sync and cursor age per kind, from the database alone (no API key)", async () => {
    const d = await fresh();
    expect((await runIn(["sync", "--to", d.to], { env: env() })).exitCode).toBe(0);
    const noKey = { PARTNER_CLI_CONFIG_DIR: tempDir() };
    const j = await runIn(["sync", "status", "--to", d.to, "--json"], { env: noKey });
    expect(j.exitCode, j.stderr).toBe(0);
    const s = JSON.parse(j.stdout);
    expect(s.schemaVersion).toBe(1);
    expect(s.organization.reportingTimeZone).toBe("America/New_York");
    const byKind = Object.fromEntries(s.kinds.map((k: any) => [k.kind, k]));
    expect(Object.keys(byKind)).toEqual([
      "redemptions",
      "corrections",
      "events",
      "creators",
      "campaigns",
      "offers",
      "links",
    ]);
    expect(byKind.redemptions.rows).toBe(300);
    expect(byKind.creators.rows).toBe((await allOf(box.sb, "/creators")).length);
    for (const k of s.kinds) {
      expect(k.lastSyncedAt, k.kind).not.toBeNull();
      expect(k.cursorAgeSeconds, k.kind).toBeGreaterThanOrEqual(0);
    }
    expect(byKind.events.windowOutrun).toBe(false);
    expect(byKind.redemptions.windowOutrun).toBeNull();
    expect(s.eventLogWindowOutrun).toBe(false);
    expect(s.recovery).toBeNull();

    const t = await runIn(["sync", "status", "--to", d.to], { env: noKey });
    expect(t.exitCode).toBe(0);
    expect(t.stdout.split("\n")[0]).toBe("kind\trows\tlastSync\tcursorAge\teventLogWindow");
    expect(t.stdout).toMatch(/^redemptions\t300\t\S+\t\d+s\t$/m);
    expect(t.stdout).toMatch(/^events\t\d+\t\S+\t\d+s\twithin 30 days$/m);
    expect(t.stderr).toMatch(/the copy of .* reporting time zone America\/New_York, schema version 1/);
    expect(t.stderr).not.toMatch(/outrun/);
  });

  it("says when the event log's 30-day window has been outrun, and what a rebuild recovers and cannot", async () => {
    const d = await fresh();
    expect((await runIn(["sync", "--to", d.to], { env: env() })).exitCode).toBe(0);
    // As if the last complete read of the log were 40 days ago.
    const longAgo = new Date(Date.now() - 40 * 86_400_000).toISOString();
    await d.query(
      `UPDATE sync_state SET last_completed_at = ${p(1)}, last_synced_at = ${p(2)} WHERE feed = 'events' OR feed LIKE 'corrections:%'`,
      [longAgo, longAgo],
    );
    const j = await runIn(["sync", "status", "--to", d.to, "--json"], {
      env: { PARTNER_CLI_CONFIG_DIR: tempDir() },
    });
    expect(j.exitCode).toBe(0);
    const s = JSON.parse(j.stdout);
    expect(s.eventLogWindowOutrun).toBe(true);
    expect(s.kinds.find((k: any) => k.kind === "events").windowOutrun).toBe(true);
    expect(s.kinds.find((k: any) => k.kind === "corrections").windowOutrun).toBe(true);
    expect(s.recovery).toMatch(/last read it to the end 40 days ago/);
    expect(s.recovery).toMatch(/sync --from-start --full/);
    expect(s.recovery).toMatch(/every redemption with its current counting state/);
    expect(s.recovery).toMatch(/cannot recover .* code-issued and campaign status-change history/);
    const t = await runIn(["sync", "status", "--to", d.to], { env: { PARTNER_CLI_CONFIG_DIR: tempDir() } });
    expect(t.stdout).toMatch(/^events\t\d+\t\S+\t40d\tOUTRUN$/m);
    expect(t.stderr).toMatch(/Warning: the event log's 30-day window has been outrun/);
  });

  it("a changed reporting time zone: the next sync recomputes every redemption's day", async () => {
    const d = await fresh();
    expect((await runIn(["sync", "--to", d.to], { env: env() })).exitCode).toBe(0);
    const days = async () =>
      (await d.query("SELECT id, redeemed_day FROM redemptions ORDER BY id")).map((r) => [
        r[0],
        String(r[1]).slice(0, 10),
      ]);
    const right = await days();
    // As if the copy had been made while the organization reported in another zone.
    await d.query(`UPDATE sync_meta SET value = 'Asia/Tokyo' WHERE key = 'reporting_time_zone'`);
    await d.query(`UPDATE redemptions SET redeemed_day = ${p(1)}`, ["2000-01-01"]);
    const r = await runIn(["sync", "--to", d.to, "--only", "offers"], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/time zone changed from Asia\/Tokyo to America\/New_York; recomputing/);
    expect(await days()).toEqual(right);
    const [tz] = await d.query("SELECT value FROM sync_meta WHERE key = 'reporting_time_zone'");
    expect(tz![0]).toBe("America/New_York");
  });

  it("creators: the next sync reads those updated since the last one; --full reads and compares the whole roster", async () => {
    const d = await fresh();
    const configDir = tempDir();
    const first = await runIn(["sync", "--to", d.to, "--only", "creators", "--json"], {
      env: env(configDir),
    });
    const total = (await allOf(box.sb, "/creators")).length;
    expect(JSON.parse(first.stdout).summary.kinds.creators.read).toBe(total);
    // Only the creators changed since the last read are read next time.
    await box.http("PUT", "/creators/cr-0002", { body: { name: "Renamed Creator" } });
    await box.http("PUT", "/creators/new-creator-1", { body: { name: "New Creator" } });
    const next = await runIn(["sync", "--to", d.to, "--only", "creators", "--json"], { env: env(configDir) });
    expect(next.exitCode, next.stderr).toBe(0);
    const k = JSON.parse(next.stdout).summary.kinds.creators;
    expect(k).toMatchObject({ read: 2, changed: 2 });
    const [row] = await d.query(`SELECT name FROM creators WHERE external_id = ${p(1)}`, ["cr-0002"]);
    expect(row![0]).toBe("Renamed Creator");
    // A row changed in the database behind the tool's back is repaired by --full, and counted.
    await d.query(`UPDATE creators SET name = 'edited by hand' WHERE external_id = ${p(1)}`, ["cr-0003"]);
    const full = await runIn(["sync", "--to", d.to, "--only", "creators", "--full", "--json"], {
      env: env(configDir),
    });
    expect(JSON.parse(full.stdout).summary.kinds.creators).toMatchObject({ read: total + 1, changed: 1 });
    const [fixed] = await d.query(`SELECT name FROM creators WHERE external_id = ${p(1)}`, ["cr-0003"]);
    expect(fixed![0]).not.toBe("edited by hand");
  });
});

describe("sync status: nothing to read", () => {
  it("a SQLite file that does not exist: exit 2, and no file is created", async () => {
    const path = join(tempDir(), "none.sqlite");
    const r = await runIn(["sync", "status", "--to", `sqlite:${path}`], {
      env: { PARTNER_CLI_CONFIG_DIR: tempDir() },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/There is no database at sqlite:.*none\.sqlite yet/);
    expect(existsSync(path)).toBe(false);
  });
});

describe.runIf(pgAvailable())("sync into PostgreSQL: connection problems", () => {
  const box = useSandbox();
  const env = () => ({
    PARTNER_CLI_CONFIG_DIR: tempDir(),
    PARTNER_BASE_URL: box.url,
    PARTNER_API_KEY: box.writeKey,
  });

  it("a wrong password exits 4, a server that does not answer exits 7; neither shows the password", async () => {
    const u = new URL(PG_URL!);
    u.password = "wrong-pass-4711";
    const bad = await runIn(["--verbose", "sync", "--to", u.toString()], { env: env() });
    expect(bad.exitCode, bad.stderr).toBe(4);
    expect(bad.stderr).toMatch(/refused this connection/);
    expect(bad.stderr).not.toContain("wrong-pass-4711");
    expect(bad.stderr).toContain("***");
    u.port = "1"; // nothing listens there
    const down = await runIn(["--verbose", "sync", "--to", u.toString()], { env: env() });
    expect(down.exitCode, down.stderr).toBe(7);
    expect(down.stderr).toMatch(/did not answer/);
    expect(down.stderr).not.toContain("wrong-pass-4711");
  });

  it("a schema with no copy: sync status exits 2 and creates nothing", async () => {
    const u = new URL(PG_URL!);
    u.searchParams.set("schema", "no_copy_here");
    const r = await runIn(["sync", "status", "--to", u.toString()], {
      env: { PARTNER_CLI_CONFIG_DIR: tempDir() },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/holds no partner-cli copy yet/);
    expect(r.stderr).not.toContain(u.password);
  });
});
