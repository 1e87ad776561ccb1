// Time moves for the embedded sandbox too (issue 22 item 4), through the built bin: every command
// starts the sandbox from its data dir and stops it at the end, yet a job queued by one command is
// further along (finished, its event in the log) when a later command reads it after the clock moved,
// and a webhook retry that fell due between two commands is attempted by the second.
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SandboxStore } from "../../src/sandbox/store.js";
import { cli } from "../helpers/cli.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { withSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { receiver } from "../sandbox/webhooks-receiver.js";

/** A config dir whose embedded sandbox (<dir>/sandbox) holds the demo seed and campaign "camp". */
async function embeddedWithCampaign(status: "draft" | "active" = "draft") {
  const configDir = tempDir("pcli-emb-time-");
  await withSandbox({ dataDir: join(configDir, "sandbox"), seed: "demo" }, async ({ sb }) => {
    await makeCampaign(sb, { externalReference: "camp", status });
  });
  // 2 creators per step, a step every minute of sandbox time: the seconds the commands take move nothing.
  const env = { PARTNER_CLI_CONFIG_DIR: configDir, PARTNER_SANDBOX: "1", PARTNER_SANDBOX_JOB_PACE: "2/60s" };
  return { configDir, env, run: (args: string[]) => cli(args, { env }) };
}

const isoPlus = (iso: string, ms: number) => `${new Date(Date.parse(iso) + ms).toISOString().slice(0, 19)}Z`;

describe("embedded sandbox: time moves between commands", () => {
  it("links assign --no-wait, sandbox advance, then links job shows it finished and events list holds its event", async () => {
    const { configDir, run } = await embeddedWithCampaign();
    const ids = join(configDir, "ids.csv");
    writeFileSync(ids, "externalId\ncr-0001\ncr-0002\ncr-0003\nnobody\n");
    const queued = await run(["links", "assign", "camp", "--ids", ids, "--no-wait"]);
    expect(queued.exitCode, queued.stderr).toBe(0);
    const jobId = queued.stdout.trim();
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);

    const before = await run(["links", "job", "camp", jobId, "--json"]);
    expect(before.exitCode, before.stderr).toBe(0);
    const waiting = JSON.parse(before.stdout);
    expect(waiting).toMatchObject({ status: "queued", assignedCount: 0 });

    const moved = await run(["sandbox", "advance", "5m"]);
    expect(moved.exitCode, moved.stderr).toBe(0);
    const after = await run(["links", "job", "camp", jobId, "--json"]);
    expect(after.exitCode, after.stderr).toBe(0);
    const done = JSON.parse(after.stdout);
    expect(done).toMatchObject({
      id: jobId,
      status: "completed",
      totalCount: 4,
      assignedCount: 3,
      failedCount: 1,
      unassignableExternalIds: ["nobody"],
      // queued → running at +1m, 2 creators at +2m, the last at +3m: on the sandbox clock
      startedAt: isoPlus(waiting.createdAt, 60_000),
      completedAt: isoPlus(waiting.createdAt, 180_000),
    });

    const events = await run(["events", "list", "--type", "assignment.completed", "--json"]);
    expect(events.exitCode, events.stderr).toBe(0);
    const { items } = JSON.parse(events.stdout);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      type: "assignment.completed",
      occurredAt: done.completedAt,
      data: { jobId, assigned: 3, failed: 1 },
    });
    const links = await run(["links", "list", "camp", "--json"]);
    expect(links.exitCode, links.stderr).toBe(0);
    const linked: { creator: { externalId: string }; assignedAt: string }[] = JSON.parse(links.stdout);
    expect(Object.fromEntries(linked.map((l) => [l.creator.externalId, l.assignedAt]))).toEqual({
      "cr-0001": isoPlus(waiting.createdAt, 120_000),
      "cr-0002": isoPlus(waiting.createdAt, 120_000),
      "cr-0003": isoPlus(waiting.createdAt, 180_000),
    });
  });

  it("a webhook retry that fell due between two commands is attempted (and recorded) by the second", async () => {
    const { configDir, run } = await embeddedWithCampaign();
    const rx = await receiver([{ status: 500 }]); // the first attempt fails, the retry succeeds
    try {
      const secretFile = join(configDir, "webhook.secret");
      const created = await run([
        "webhooks",
        "create",
        "--url",
        rx.url,
        "--events",
        "campaign.status_changed",
        "--secret-file",
        secretFile,
      ]);
      expect(created.exitCode, created.stderr).toBe(0);
      const epId = /webhook ([0-9a-f-]{36})/.exec(created.stderr)![1]!;

      // The first attempt is made (and its 500 recorded) before the command ends.
      const activated = await run(["campaigns", "activate", "camp"]);
      expect(activated.exitCode, activated.stderr).toBe(0);
      expect(rx.requests).toHaveLength(1);
      const first = JSON.parse((await run(["webhooks", "get", epId, "--json"])).stdout).recentDeliveries;
      expect(first).toMatchObject([{ attempts: 1, lastStatusCode: 500, deliveredAt: null }]);
      expect(first[0].nextAttemptAt).not.toBeNull();
      expect(rx.requests).toHaveLength(1); // not due yet: the read above attempted nothing

      // Two minutes pass while no command runs (the retry is due after one).
      const store = await SandboxStore.open(join(configDir, "sandbox"));
      try {
        store.write(() => {
          store.clockOffsetMs += 120_000;
        });
      } finally {
        store.close();
      }

      // A read-only command: the sandbox it starts attempts the due retry, and records it before it ends.
      const reader = await run(["webhooks", "list", "--json"]);
      expect(reader.exitCode, reader.stderr).toBe(0);
      expect(rx.requests).toHaveLength(2);
      expect(rx.requests[1]!.headers["service-event-id"]).toBe(rx.requests[0]!.headers["service-event-id"]);
      const second = JSON.parse((await run(["webhooks", "get", epId, "--json"])).stdout).recentDeliveries;
      expect(second).toMatchObject([{ attempts: 2, lastStatusCode: 200, nextAttemptAt: null }]);
      expect(second[0].deliveredAt).not.toBeNull();
      expect(Date.parse(second[0].lastAttemptAt)).toBeGreaterThanOrEqual(Date.parse(first[0].nextAttemptAt));
      expect(rx.requests).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });
});
