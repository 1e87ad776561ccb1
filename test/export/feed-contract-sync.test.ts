// The feed's contract checked by the same feed loop in `events sync` (the event log into its NDJSON
// store) and `sync --to sqlite:` (the redemption feed into a database): a cursor that loops, a
// 2-cycle and the order going backwards stop the run before the bad page (exit 4) with nothing of it
// stored and the position at the last good page; a run after the fault is cleared ends with every id
// once; repeated ids are stored once. Faults injected by the sandbox (POST /_sandbox/faults {feed}).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../src/sandbox/handlers/redemptions.js";
import { emitStatusChanges, useFeedCampaign } from "../helpers/fixtures.js";
import { type SandboxFixture, useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { sqliteDest } from "../sync/destinations.js";
import { feedIds } from "./arrange.js";

const BREAKS = ["cursor-loop", "cursor-cycle", "time-backwards"] as const;

async function withFeedFault<T>(box: SandboxFixture, feed: Record<string, unknown>, fn: () => Promise<T>) {
  await box.http("POST", "/faults", { control: true, body: { feed } });
  try {
    return await fn();
  } finally {
    await box.http("POST", "/faults", { control: true, body: { feed: null } });
  }
}

describe("events sync when the service breaks the event log's contract", () => {
  const box = useSandbox({ seed: "empty" });
  beforeAll(() => emitStatusChanges(box, 20));
  const LIMIT = 3;
  const logIds = async (): Promise<string[]> =>
    (await box.http("GET", "/events?limit=1000")).body.items.map((e: { id: string }) => e.id);
  const storeIds = (path: string) =>
    readFileSync(path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).id as string);

  for (const kind of BREAKS) {
    it(`${kind}: exit 4, the store holds exactly the pages before the bad one; the next run adds the rest once`, async () => {
      const all = await logIds();
      expect(all.length).toBeGreaterThanOrEqual(20);
      const configDir = tempDir();
      const out = join(tempDir(), "events.ndjson");
      const sync = () =>
        box.run(["events", "sync", "--out", out, "--page-size", String(LIMIT), "--json"], { configDir });
      const at = 2 * LIMIT;
      const r = await withFeedFault(box, { feed: "events", kind, at }, sync);
      expect(r.exitCode, r.stderr).toBe(4);
      const error = JSON.parse(r.stderr).error;
      expect(error.code).toBe("feed_contract_broken");
      expect(error.message).toMatch(
        /^The service broke the contract of the event log at page 3 of this run \(read with cursor "[\w-]+"\): /,
      );
      if (kind === "time-backwards") expect(error.message).toContain("occurredAt goes backwards");
      expect(storeIds(out)).toEqual(all.slice(0, at));

      const again = await sync();
      expect(again.exitCode, again.stderr).toBe(0);
      expect(storeIds(out)).toEqual(all);
    });
  }

  it("repeat-ids: every event once, exit 0, the repeats counted as already there", async () => {
    const all = await logIds();
    const out = join(tempDir(), "events.ndjson");
    const r = await withFeedFault(box, { feed: "events", kind: "repeat-ids", at: LIMIT, count: 2 }, () =>
      box.run(["events", "sync", "--out", out, "--page-size", String(LIMIT), "--json"], {
        configDir: tempDir(),
      }),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(storeIds(out)).toEqual(all);
    const summary = JSON.parse(r.stdout).summary;
    expect(summary.duplicates).toBe(2 * (summary.pages - 1));
  });
});

describe("sync --to sqlite: when the service breaks the redemption feed's contract", () => {
  const box = useSandbox();
  useFeedCampaign(box, { claims: 320, redemptions: 300, seed: 5 });
  const LIMIT = 50;
  const sync = (to: string, configDir: string) =>
    box.run(["sync", "--to", to, "--only", "redemptions", "--page-size", String(LIMIT)], { configDir });

  for (const kind of BREAKS) {
    it(`${kind}: exit 4, nothing of the bad page in the database, the checkpoint at the last good page; the next run completes the copy`, async () => {
      const all = await feedIds(box.sb);
      const d = sqliteDest();
      const configDir = tempDir();
      const at = 3 * LIMIT;
      const r = await withFeedFault(box, { feed: "redemptions", kind, at }, () => sync(d.to, configDir));
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stderr).toContain(
        `the redemption feed at page 4 of this run (read with cursor "${encodeCursor(at)}")`,
      );
      const held = (await d.query("SELECT id FROM redemptions")).map((x) => String(x[0]));
      expect(new Set(held)).toEqual(new Set(all.slice(0, at)));
      const state = await d.query("SELECT cursor FROM sync_state WHERE feed = 'redemptions'");
      expect(state[0]![0]).toBe(encodeCursor(at));

      const again = await sync(d.to, configDir);
      expect(again.exitCode, again.stderr).toBe(0);
      const after = (await d.query("SELECT id FROM redemptions")).map((x) => String(x[0]));
      expect(after.length).toBe(all.length);
      expect(new Set(after)).toEqual(new Set(all));
    });
  }

  it("repeat-ids: every redemption once, exit 0", async () => {
    const all = await feedIds(box.sb);
    const d = sqliteDest();
    const r = await withFeedFault(box, { feed: "redemptions", kind: "repeat-ids", at: LIMIT, count: 9 }, () =>
      sync(d.to, tempDir()),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const held = (await d.query("SELECT id FROM redemptions")).map((x) => String(x[0]));
    expect(held.length).toBe(all.length);
    expect(new Set(held)).toEqual(new Set(all));
  });
});
