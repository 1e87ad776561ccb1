// A whole session through the built bin: the API key must never appear on stdout or stderr, in
// any mode (plain, --json, --verbose, errors); only its masked form "****" + last 4 characters.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cli } from "../helpers/cli.js";
import type { RunResult } from "../helpers/result.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";

const box = useSandbox();

const masked = (k: string) => `****${k.slice(-4)}`;

describe("secrets stay secret", () => {
  test("login, me, profiles, a failing call, logout: no key in any output", async () => {
    const dir = tempDir("pcli-secrets-");
    const env = { PARTNER_CLI_CONFIG_DIR: dir, PARTNER_RETRY_DEADLINE_MS: "500" };
    const write = box.writeKey;
    const read = box.readOnlyKey;
    const bad = box.sb.testKeys.revokedKey;
    const secrets = [write, read, bad];
    const outputs: { args: string[]; r: RunResult }[] = [];
    const run = async (args: string[], o: { env?: NodeJS.ProcessEnv; input?: string } = {}) => {
      const r = await cli(args, { env: { ...env, ...o.env }, input: o.input });
      outputs.push({ args, r });
      return r;
    };

    expect(
      (await run(["login", "--base-url", box.url, "--api-key-stdin"], { input: `${write}\n` })).exitCode,
    ).toBe(0);
    expect(
      (
        await run(
          ["login", "--profile", "ro", "--base-url", box.url, "--api-key-stdin", "--json", "--verbose"],
          { input: read },
        )
      ).exitCode,
    ).toBe(0);
    const meVerbose = await run(["me", "--verbose"]);
    expect(meVerbose.exitCode).toBe(0);
    // The trace shows the request, with the key redacted.
    expect(meVerbose.stderr).toContain(`authorization: Bearer ${masked(write)}`);
    expect((await run(["me"])).exitCode).toBe(0);
    expect((await run(["me", "--json"])).exitCode).toBe(0);
    expect((await run(["me", "--json", "--verbose"], { env: { PARTNER_PROFILE: "ro" } })).exitCode).toBe(0);
    const list = await run(["profiles", "list"]);
    expect(list.stdout).toContain(masked(write));
    expect(list.stdout).toContain(masked(read));
    expect((await run(["profiles", "list", "--json"])).exitCode).toBe(0);
    const show = await run(["profiles", "show"]);
    expect(show.stdout).toContain(masked(write));
    expect((await run(["profiles", "show", "ro", "--json"])).exitCode).toBe(0);
    // PARTNER_DEBUG=1 is --verbose too.
    const debug = await run(["me"], { env: { PARTNER_DEBUG: "1", PARTNER_PROFILE: "ro" } });
    expect(debug.stderr).toContain(`Bearer ${masked(read)}`);

    // Failing calls: a revoked key from the environment, and a login with it.
    const fail = await run(["me", "--verbose"], { env: { PARTNER_API_KEY: bad } });
    expect(fail.exitCode).toBe(4);
    expect(fail.stderr).toContain(`Bearer ${masked(bad)}`);
    const failJson = await run(["me", "--json"], { env: { PARTNER_API_KEY: bad } });
    expect(failJson.exitCode).toBe(4);
    const badLogin = await run(
      ["login", "--profile", "x", "--base-url", box.url, "--api-key-stdin", "--verbose"],
      {
        input: bad,
      },
    );
    expect(badLogin.exitCode).toBe(4);
    // A malformed key (two lines) is refused without echoing it.
    const twoLines = await run(["login", "--profile", "y", "--base-url", box.url, "--api-key-stdin"], {
      input: `${write}\n${read}\n`,
    });
    expect(twoLines.exitCode).toBe(2);

    expect((await run(["logout", "--profile", "ro", "--verbose"])).exitCode).toBe(0);
    expect((await run(["logout"])).exitCode).toBe(0);

    for (const { args, r } of outputs) {
      for (const s of secrets) {
        expect(r.stdout.includes(s), `stdout of ${args.join(" ")} holds a key`).toBe(false);
        expect(r.stderr.includes(s), `stderr of ${args.join(" ")} holds a key`).toBe(false);
      }
    }
    // Stored keys live only in the 0600 file; after logout none is left.
    expect(statSync(join(dir, "config.json")).mode & 0o777).toBe(0o600);
    const file = readFileSync(join(dir, "config.json"), "utf8");
    for (const s of secrets) expect(file).not.toContain(s);
  }, 240_000); // about 17 process starts: seconds each when the machine is busy
});
