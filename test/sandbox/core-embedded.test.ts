// The embedded sandbox: started in-process per command (chosen with --sandbox / PARTNER_SANDBOX=1,
// or implicitly at a terminal), state in the config dir, one stderr notice per command, and a lock
// so concurrent commands take turns.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { getMe } from "../../src/api/me.js";
import { systemClock } from "../../src/clock.js";
import { startEmbeddedSandbox } from "../../src/sandbox/embedded.js";
import { DB_FILE } from "../../src/sandbox/store.js";
import { http, type RunningSandbox, tempDir, testContext } from "../helpers/sandbox.js";
import { until } from "../helpers/wait.js";

const asSb = (e: { url: string; writeKey: string }) => e as unknown as RunningSandbox;

describe("embedded sandbox", () => {
  it("keeps its state in <state dir>/sandbox (state/ in PARTNER_CLI_CONFIG_DIR) and prints one notice per command", async () => {
    const configDir = tempDir();
    const { ctx, stderr } = testContext(null, { configDir, globals: { sandbox: true } });
    const api = await ctx.api();
    await getMe(api);
    await getMe(await ctx.api());
    const target = await ctx.target();
    expect(target.source).toBe("embedded");
    await http(asSb({ url: target.baseUrl, writeKey: target.apiKey }), "PUT", "/creators/emb-1", {
      body: { name: "Embedded" },
    });
    await ctx.close();
    const notices = stderr()
      .split("\n")
      .filter((l) => /embedded sandbox/.test(l));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(join(configDir, "state", "sandbox"));
    const snapshot = join(configDir, "state", "sandbox", DB_FILE);
    expect(existsSync(snapshot)).toBe(true);
    expect(statSync(snapshot).mode & 0o777).toBe(0o600);
    expect(statSync(join(configDir, "state")).mode & 0o777).toBe(0o700);
    expect(existsSync(join(configDir, "sandbox"))).toBe(false);

    // The next command (chosen with PARTNER_SANDBOX=1 this time) sees the data.
    const next = testContext(null, { configDir, env: { PARTNER_SANDBOX: "1" } });
    const t2 = await next.ctx.target();
    const res = await http(asSb({ url: t2.baseUrl, writeKey: t2.apiKey }), "GET", "/creators/emb-1");
    await next.ctx.close();
    expect(res.body.name).toBe("Embedded");
  });

  it("PARTNER_CLI_STATE_DIR places it; an earlier version's <config dir>/sandbox keeps being used, never an empty one", async () => {
    const configDir = tempDir();
    const stateDir = join(tempDir(), "st");
    const old = join(configDir, "sandbox");
    const first = await startEmbeddedSandbox(old);
    await http(asSb(first), "PUT", "/creators/from-before", { body: { name: "Before" } });
    await first.close();
    const { ctx, stderr } = testContext(null, {
      configDir,
      env: { PARTNER_CLI_STATE_DIR: stateDir, PARTNER_SANDBOX: "1" },
    });
    const t = await ctx.target();
    const res = await http(asSb({ url: t.baseUrl, writeKey: t.apiKey }), "GET", "/creators/from-before");
    await ctx.close();
    expect(res.body.name).toBe("Before");
    expect(stderr()).toContain(`its data is in ${old}.`);
    expect(existsSync(stateDir)).toBe(false);

    // Without an old one, the state dir is used (made private).
    const fresh = testContext(null, {
      configDir: tempDir(),
      env: { PARTNER_CLI_STATE_DIR: stateDir, PARTNER_SANDBOX: "1" },
    });
    await fresh.ctx.target();
    await fresh.ctx.close();
    expect(fresh.stderr()).toContain(`its data is in ${join(stateDir, "sandbox")}.`);
    expect(existsSync(join(stateDir, "sandbox", DB_FILE))).toBe(true);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
  });

  it("a second command waits for the first (lock), then sees its writes", async () => {
    const dir = join(tempDir(), "sandbox");
    const a = await startEmbeddedSandbox(dir);
    await http(asSb(a), "PUT", "/creators/first", { body: { name: "First" } });
    // The lock's retry loop pauses on the system clock: its first pause means B tried and was refused.
    const pauses = vi.spyOn(systemClock, "sleep");
    let bReady = false;
    const bPromise = startEmbeddedSandbox(dir).then((b) => {
      bReady = true;
      return b;
    });
    try {
      await until(() => pauses.mock.calls.length > 0, 10_000, "the second command waiting for the lock");
    } finally {
      pauses.mockRestore();
    }
    expect(bReady).toBe(false);
    await a.close();
    const b = await bPromise;
    try {
      expect((await http(asSb(b), "GET", "/creators/first")).body.name).toBe("First");
    } finally {
      await b.close();
    }
  });
});
