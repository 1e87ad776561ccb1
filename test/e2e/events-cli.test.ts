import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { OrgState } from "../../src/sandbox/store.js";
import { BIN, cli } from "../helpers/cli.js";
import { http, type RunningSandbox, sandbox, tempDir } from "../helpers/sandbox.js";
import { until } from "../sandbox/webhooks-receiver.js";

let sb: RunningSandbox;
let org: OrgState;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sb = await sandbox({ seed: "empty" });
  const me = await http(sb, "GET", "/me");
  org = sb.sandbox.org(me.body.organization.id)!;
  env = { PARTNER_CLI_CONFIG_DIR: tempDir(), PARTNER_BASE_URL: sb.url, PARTNER_API_KEY: sb.writeKey };
}, 120_000);
afterAll(() => sb?.close());

const campaign = { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" };
const emit = () =>
  sb.sandbox.emit(org, "campaign.status_changed", { campaign, from: "active", to: "paused" }).id;

describe("events through the built bin", () => {
  test("tail: only events after the start, NDJSON when piped; SIGINT exits 0", async () => {
    const old = [emit(), emit()];
    const proc = execa("node", [BIN, "events", "tail", "--interval", "100ms"], {
      reject: false,
      env: { NO_COLOR: "1", ...env },
      stdin: "ignore",
    });
    let out = "";
    let err = "";
    proc.stdout!.on("data", (c: Buffer) => {
      out += c;
    });
    proc.stderr!.on("data", (c: Buffer) => {
      err += c;
    });
    await until(() => err.includes("Following the event log"), 20_000);
    const fresh = [emit(), emit(), emit()];
    await until(() => out.trim().split("\n").filter(Boolean).length >= 3, 20_000);
    proc.kill("SIGINT");
    const r = await proc;
    expect(r.exitCode).toBe(0);
    const printed = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(printed).toEqual(fresh);
    expect(printed).not.toContain(old[0]);
  }, 60_000);

  test("sync: a summary line on stderr, {summary} with --json, nothing twice", async () => {
    const out = join(tempDir(), "events.ndjson");
    const first = await cli(["events", "sync", "--out", out], { env });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toBe("");
    expect(first.stderr).toMatch(/Synced \d+ new events into/);
    emit();
    const second = await cli(["event", "sync", "--out", out, "--json"], { env });
    expect(JSON.parse(second.stdout).summary).toMatchObject({ appended: 1, out });
    const ids = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(org.events.length);
    expect((await cli(["events", "types"], { env })).stdout.split("\n")).toHaveLength(9);
  });
});
