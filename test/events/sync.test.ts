// events sync: the replay loop into the NDJSON store that `webhooks listen` writes; checkpoints per
// profile, organization, store and type; run lock (exit 9); a store fed by both has each event once.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { lockDestination } from "../../src/export/checkpoint.js";
import { resolveOutPath } from "../../src/export/durable-output.js";
import { type OrgState, existingWebhooksArea } from "../../src/sandbox/store.js";
import { startReceiver } from "../../src/webhooks/receiver.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { until } from "../sandbox/webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";

const box = useSandbox({ seed: "empty" });
let org: OrgState;
beforeAll(async () => {
  const me = await box.http("GET", "/me");
  org = box.sb.sandbox.org(me.body.organization.id)!;
});

const campaign = { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "Spring" };
function emit(type: "code.issued" | "campaign.status_changed" = "code.issued"): string {
  return (
    type === "code.issued"
      ? box.sb.sandbox.emit(org, type, {
          claimId: "6f1c2d8e-1111-4222-8333-944445555666",
          campaign,
          creator: { externalId: "c1", name: "C" },
          issuedAt: box.sb.sandbox.clock.iso(),
        })
      : box.sb.sandbox.emit(org, type, { campaign, from: "active", to: "paused" })
  ).id;
}
const idsIn = (path: string): string[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).id);

function setup() {
  const config = tempDir("pcli-sync-");
  const out = join(tempDir("pcli-store-"), "events.ndjson");
  const env = box.env({}, { configDir: config });
  const run = (args: string[]) => runIn(["events", "sync", "--out", out, ...args], { env });
  return { config, out, env, run };
}

describe("events sync", () => {
  test("copies the log once across runs, pages of --page-size, skips nothing, saves the cursor", async () => {
    const { out, run } = setup();
    const before = org.events.list().map((e) => e.id);
    const mine = Array.from({ length: 7 }, () => emit());
    const first = await run(["--page-size", "3", "--json"]);
    expect(first.exitCode).toBe(0);
    const s1 = JSON.parse(first.stdout).summary;
    expect(s1.appended).toBe(before.length + 7);
    expect(s1.pages).toBeGreaterThanOrEqual(3);
    expect(first.stderr).toMatch(/^Synced \d+ new events into /m);
    expect(idsIn(out)).toEqual([...before, ...mine]);

    const again = await run(["--page-size", "3", "--json"]);
    expect(JSON.parse(again.stdout).summary.appended).toBe(0);
    const more = [emit(), emit()];
    const third = await run(["--page-size", "3", "--json"]);
    const s3 = JSON.parse(third.stdout).summary;
    expect(s3.appended).toBe(2);
    // The saved cursor is used: only the last page or so is re-read.
    expect(s3.pages).toBeLessThanOrEqual(2);
    expect(idsIn(out)).toEqual([...before, ...mine, ...more]);

    // --from-start reads everything again and adds nothing.
    const all = await run(["--from-start", "--json"]);
    expect(JSON.parse(all.stdout).summary).toMatchObject({ appended: 0 });
    expect(new Set(idsIn(out)).size).toBe(idsIn(out).length);
  });

  test("--type keeps its own cursor; the envelopes are stored as the log returns them", async () => {
    const { out, run } = setup();
    const status = [emit("campaign.status_changed"), emit("campaign.status_changed")];
    emit();
    const r = await run(["--type", "campaign.status_changed", "--json"]);
    expect(r.exitCode).toBe(0);
    const stored = idsIn(out);
    expect(
      stored.every((id) => org.events.list().find((e) => e.id === id)!.type === "campaign.status_changed"),
    ).toBe(true);
    expect(stored).toEqual(expect.arrayContaining(status));
    const line = readFileSync(out, "utf8").split("\n")[0]!;
    const logged = (await box.http("GET", `/events/${JSON.parse(line).id}`)).body;
    expect(JSON.parse(line)).toEqual(logged);
    // Without --type: a different checkpoint, so the other types are added now, none twice.
    const all = await run(["--json"]);
    expect(JSON.parse(all.stdout).summary.duplicates).toBeGreaterThanOrEqual(status.length);
    expect(new Set(idsIn(out)).size).toBe(org.events.length);
    expect((await run(["--type", "nope"])).exitCode).toBe(2);
  });

  test("a second sync of the same store exits 9 while the first holds the lock", async () => {
    const { env, out, run } = setup();
    const { ctx } = box.context({ configDir: env.PARTNER_CLI_CONFIG_DIR });
    const lock = await lockDestination(
      ctx.configDir(),
      { kind: "file", path: await resolveOutPath(out) },
      "test holder",
    );
    try {
      const r = await run([]);
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain("in use by another partner-cli run");
    } finally {
      await lock.release();
      await ctx.close();
    }
    expect((await run([])).exitCode).toBe(0);
  });

  test("after the receiver was down, sync fills the gap; late retries are duplicates: each event once", async () => {
    const { out, run } = setup();
    await run([]); // the store starts with the log so far
    const probe = await startReceiver({ secrets: ["whsec_x"], out: join(tempDir(), "probe") });
    const { url, port } = probe;
    await probe.close();
    const reg = await box.http("POST", "/webhooks", { body: { url, eventTypes: ["code.issued"] } });
    const secret = reg.body.secret as string;
    const epId = reg.body.webhook.id as string;
    const pending = () =>
      [...existingWebhooksArea(org)!.deliveries.values()].filter(
        (d) => d.endpointId === epId && d.nextAttemptAtMs !== null,
      ).length;
    let rx = await startReceiver({ secrets: [secret], out, port });
    const live = Array.from({ length: 20 }, () => emit());
    await until(() => pending() === 0, 10_000);
    await rx.close();
    // Down: these fail (unreachable) and wait for retries.
    const gap = Array.from({ length: 30 }, () => emit());
    await until(() => pending() === 30, 10_000);
    const synced = await run(["--json"]);
    const s = JSON.parse(synced.stdout).summary;
    expect(s.appended).toBe(30);
    expect(s.duplicates).toBeGreaterThanOrEqual(0);
    // Back up: the retries arrive and are answered 200 as duplicates.
    let duplicates = 0;
    rx = await startReceiver({
      secrets: [secret],
      out,
      port,
      onReceipt: (r) => {
        if (r.kind === "duplicate") duplicates++;
      },
    });
    try {
      await box.http("POST", "/advance", { control: true, body: { duration: "2m" } });
      await until(() => pending() === 0, 15_000);
      expect(duplicates).toBe(30);
      const stored = idsIn(out);
      expect(new Set(stored).size).toBe(stored.length);
      expect(stored).toEqual(expect.arrayContaining([...live, ...gap]));
      expect(new Set(stored)).toEqual(new Set(org.events.list().map((e) => e.id)));
    } finally {
      await rx.close();
      await box.http("DELETE", `/webhooks/${epId}`);
    }
  });

  test("whose store: one written by webhooks listen alone is accepted; an export file, a foreign file or another organization's store is refused untouched", async () => {
    const { env, out, run } = setup();
    // A store no sync has written yet, with envelopes only (as webhooks listen leaves it): accepted,
    // the events it holds are not added twice.
    const held = (await box.http("GET", "/events?limit=2")).body.items as { id: string }[];
    writeFileSync(out, held.map((e) => `${JSON.stringify(e)}\n`).join(""));
    const first = await run(["--json"]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(new Set(idsIn(out)).size).toBe(idsIn(out).length);
    expect(JSON.parse(first.stdout).summary.duplicates).toBeGreaterThanOrEqual(2);

    // Another organization's key on the same store (same service): refused, the file as it was.
    const bytes = readFileSync(out);
    const other = await runIn(["events", "sync", "--out", out], {
      env: { ...env, PARTNER_API_KEY: box.sb.testKeys.otherOrgKey },
    });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/it holds the events of organization .+, and this run is for /);
    expect(readFileSync(out).equals(bytes)).toBe(true);

    // A file that is not an event store, and an export file of a cursor.
    const csv = join(tempDir(), "r.csv");
    writeFileSync(csv, "id,amount\nA-1,5\n");
    const foreign = await runIn(["events", "sync", "--out", csv], { env });
    expect(foreign.exitCode).toBe(2);
    expect(foreign.stderr).toContain("line 1 (at byte 0) is not JSON");
    expect(readFileSync(csv, "utf8")).toBe("id,amount\nA-1,5\n");
    const exported = join(tempDir(), "x.csv");
    expect((await runIn(["redemptions", "export", "--out", exported], { env })).exitCode).toBe(0);
    const exportBytes = readFileSync(exported);
    const onExport = await runIn(["events", "sync", "--out", exported], { env });
    expect(onExport.exitCode).toBe(2);
    expect(onExport.stderr).toContain("it is the output of the export cursor of");
    expect(readFileSync(exported).equals(exportBytes)).toBe(true);
  });
});
