import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, test } from "vitest";
import type { OrgState } from "../../src/sandbox/store.js";
import { startReceiver } from "../../src/webhooks/receiver.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { until } from "../sandbox/webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });
let org: OrgState;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  const me = await s.http("GET", "/me");
  org = s.sb.sandbox.org(me.body.organization.id)!;
  env = s.env({}, { configDir: tempDir() });
}, 120_000);

const campaign = { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" };
const emit = () =>
  s.sb.sandbox.emit(org, "campaign.status_changed", { campaign, from: "active", to: "paused" }).id;

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

  test("sync's store: lines webhooks listen appends between syncs are accepted; a re-saved or foreign-edited store is refused untouched", async () => {
    const dir = tempDir();
    const out = join(dir, "events.ndjson");
    const cursorsDir = join(env.PARTNER_CLI_CONFIG_DIR!, "cursors");
    const cursors = () =>
      readdirSync(cursorsDir)
        .map((f) => readFileSync(join(cursorsDir, f), "utf8"))
        .join("\n");
    emit();
    expect((await cli(["events", "sync", "--out", out], { env })).exitCode).toBe(0);

    // webhooks listen (the real command) appends deliveries to the same store between two syncs.
    const probe = await startReceiver({ secrets: ["whsec_probe"], out: join(dir, "probe.ndjson") });
    const { url, port } = probe;
    await probe.close();
    const reg = await s.http("POST", "/webhooks", {
      body: { url, eventTypes: ["campaign.status_changed"] },
    });
    const secretFile = join(dir, "secret");
    writeFileSync(secretFile, `${reg.body.secret}\n`, { mode: 0o600 });
    const listen = execa(
      "node",
      [BIN, "webhooks", "listen", "--secret-file", secretFile, "--port", String(port), "--out", out],
      { reject: false, env: { NO_COLOR: "1", ...env }, stdin: "ignore" },
    );
    let err = "";
    listen.stderr!.on("data", (c: Buffer) => {
      err += c;
    });
    const lines = () => readFileSync(out, "utf8").split("\n").filter(Boolean).length;
    try {
      await until(() => err.includes("Listening on"), 20_000);
      const before = lines();
      for (let i = 0; i < 3; i++) emit();
      await until(() => lines() === before + 3, 20_000);
    } finally {
      listen.kill("SIGINT");
      await listen;
      await s.http("DELETE", `/webhooks/${reg.body.webhook.id}`);
    }
    const accepted = await cli(["events", "sync", "--out", out, "--json"], { env });
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout).summary).toMatchObject({ appended: 0 });
    const ids = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(org.events.list().map((e) => e.id)));

    const good = readFileSync(out);
    const cursor = cursors();
    const refused = async (bytes: Buffer, message: string | RegExp) => {
      writeFileSync(out, bytes);
      const r = await cli(["events", "sync", "--out", out], { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`Error: Refusing to sync into ${out}: `);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain("Nothing was written and the sync's cursor is unchanged.");
      expect(readFileSync(out).equals(bytes)).toBe(true);
      expect(cursors()).toBe(cursor);
    };
    // Re-saved with CRLF line ends.
    await refused(Buffer.from(good.toString("utf8").replace(/\n/g, "\r\n")), /it has CRLF line ends now/);
    // A note appended by hand after the committed lines.
    await refused(
      Buffer.concat([good, Buffer.from("checked 2024-05-01\n")]),
      /line [\d,]+ \(at byte [\d,]+\) is not JSON/,
    );
    // Shortened by one event.
    const text = good.toString("utf8");
    await refused(
      Buffer.from(text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1)),
      /bytes shorter than/,
    );

    // A partial last line (a writer killed mid-line) is cut as before, and the sync goes on.
    writeFileSync(out, Buffer.concat([good, Buffer.from('{"id":"half')]));
    const cut = await cli(["events", "sync", "--out", out], { env });
    expect(cut.exitCode, cut.stderr).toBe(0);
    expect(cut.stderr).toContain(`Removed 11 bytes of an unfinished line at the end of ${out}.`);
    expect(readFileSync(out).equals(good)).toBe(true);
  }, 120_000);
});
