// events types | get | list | tail against a sandbox on port 0.
import { beforeAll, describe, expect, test } from "vitest";
import { eventsTailRun } from "../../src/commands/events/tail.js";
import type { OrgState } from "../../src/sandbox/store.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { until } from "../helpers/wait.js";

const s = useSandbox({ seed: "empty" });
let org: OrgState;
let env: NodeJS.ProcessEnv;
const ids: string[] = [];
beforeAll(async () => {
  const me = await s.http("GET", "/me");
  org = s.sb.sandbox.org(me.body.organization.id)!;
  env = s.env({}, { configDir: tempDir() });
  for (let i = 0; i < 5; i++) ids.push(emit("code.issued").id);
  ids.push(emit("campaign.status_changed").id);
});

const campaign = { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "Spring" };
function emit(type: "code.issued" | "campaign.status_changed") {
  return type === "code.issued"
    ? s.sb.sandbox.emit(org, type, {
        claimId: "6f1c2d8e-1111-4222-8333-944445555666",
        campaign,
        creator: { externalId: "c1", name: "C" },
        issuedAt: s.sb.sandbox.clock.iso(),
      })
    : s.sb.sandbox.emit(org, type, { campaign, from: "active", to: "paused" });
}
const run = (args: string[], o: Parameters<typeof runIn>[1] = {}) => runIn(args, { env, ...o });

describe("events types, get, list", () => {
  test("types: the eight types with descriptions", async () => {
    const r = await run(["events", "types", "--json"]);
    expect(r.exitCode).toBe(0);
    const types = JSON.parse(r.stdout);
    expect(types).toHaveLength(8);
    expect(types[0]).toMatchObject({ type: "redemption.recorded" });
    const text = await run(["event", "types"]);
    expect(text.stdout).toContain("assignment.completed\t");
  });

  test("get: one envelope; unknown id exits 5", async () => {
    const r = await run(["events", "get", ids[0]!, "--json"]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: ids[0], type: "code.issued", sample: false });
    const text = await run(["events", "get", ids[5]!]);
    expect(text.stdout).toContain("Spring  active -> paused");
    expect((await run(["events", "get", "0190a1b2-0000-7000-8000-000000000000"])).exitCode).toBe(5);
  });

  test("list: pages with --after, --type filter, TSV/JSON; bad cursor and type are usage errors", async () => {
    const p1 = await run(["events", "list", "--limit", "2", "--json"]);
    expect(p1.exitCode).toBe(0);
    const page1 = JSON.parse(p1.stdout);
    expect(page1.items.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    expect(page1.nextCursor).toBeTruthy();
    const p2 = await run(["events", "list", "--limit", "2", "--after", page1.nextCursor]);
    expect(p2.stdout.split("\n")[0]).toBe("occurredAt\ttype\tid\tsummary");
    expect(p2.stdout).toContain(ids[2]);
    expect(p2.stderr).toContain("events list --after");
    const typed = JSON.parse(
      (await run(["events", "list", "--type", "campaign.status_changed", "--json"])).stdout,
    );
    expect(typed.items.map((e: { id: string }) => e.id)).toEqual([ids[5]]);
    expect(typed.nextCursor).toBeNull();
    const badCursor = await run(["events", "list", "--after", ids[0]!]);
    expect(badCursor.exitCode).toBe(2);
    expect(badCursor.stderr).toContain("not a valid cursor");
    const badType = await run(["events", "list", "--type", "code.Issued"]);
    expect(badType.exitCode).toBe(2);
    expect(badType.stderr).toContain('did you mean "code.issued"');
    expect((await run(["events", "list", "--limit", "0"])).exitCode).toBe(2);
  });
});

describe("events tail", () => {
  test("prints only events after the start, NDJSON when piped, with the type filter", async () => {
    const { ctx, stdout, stderr } = s.context();
    const fresh: string[] = [];
    await eventsTailRun(
      {
        interval: 10,
        maxPolls: 3,
        onPoll: (n) => {
          if (n === 1) {
            fresh.push(emit("code.issued").id, emit("campaign.status_changed").id, emit("code.issued").id);
          }
        },
      },
      ctx,
    );
    const printed = stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(printed).toEqual(fresh);
    expect(stderr()).toContain("earlier events skipped");
    await ctx.close();

    const typed = s.context({ tty: true });
    const more: string[] = [];
    await eventsTailRun(
      {
        type: "campaign.status_changed",
        interval: 10,
        maxPolls: 2,
        onPoll: (n) => {
          if (n === 1) {
            emit("code.issued");
            more.push(emit("campaign.status_changed").id);
          }
        },
      },
      typed.ctx,
    );
    const lines = typed.stdout().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(more[0]);
    expect(lines[0]).toContain("campaign.status_changed");
    expect(lines[0]).toContain("active -> paused");
    await typed.ctx.close();
  });

  test("stops at Ctrl-C with exit 0", async () => {
    const ac = new AbortController();
    const { ctx, stderr } = s.context();
    // The run's Ctrl-C signal, for the test.
    (ctx as unknown as { signal: AbortSignal }).signal = ac.signal;
    const run = eventsTailRun({ interval: 20 }, ctx);
    // Ctrl-C once it follows the log.
    await until(() => stderr().includes("Following the event log"), 10_000, "the tail following");
    ac.abort();
    await run;
    expect(stderr()).toContain("Stopped following");
    await ctx.close();
  });
});
