// login / profiles / logout through the built bin (bin/partner-cli.js → dist), as a user runs them.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox();

const mode = (p: string) => statSync(p).mode & 0o777;

describe("login through the bin", () => {
  test("with umask 000 the stored key is in a 0600 file inside a 0700 directory", async () => {
    const dir = join(tempDir("pcli-e2e-umask-"), "cfg");
    const r = await execa(
      "sh",
      ["-c", `umask 000 && node "${BIN}" login --base-url "${s.url}" --api-key-stdin`],
      { input: `${s.writeKey}\n`, reject: false, env: { PARTNER_CLI_CONFIG_DIR: dir, NO_COLOR: "1" } },
    );
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, "config.json"))).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).profiles.default.apiKey).toBe(
      s.writeKey,
    );
  });

  test("without a terminal and without --api-key-stdin: exit 2, pointing at --api-key-stdin", async () => {
    const dir = tempDir("pcli-e2e-notty-");
    const r = await cli(["login", "--base-url", s.url], { env: { PARTNER_CLI_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--api-key-stdin");
    expect(r.stdout).toBe("");
  });

  test("login, profiles list/use/show, me, logout", async () => {
    const env = { PARTNER_CLI_CONFIG_DIR: tempDir("pcli-e2e-flow-") };
    let r = await cli(["login", "--base-url", s.url, "--api-key-stdin"], { env, input: `${s.writeKey}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("Logged in to Northwind Creators");
    r = await cli(["login", "--profile", "ro", "--api-key-stdin"], {
      env: { ...env, PARTNER_BASE_URL: s.url },
      input: s.readOnlyKey,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    r = await cli(["profiles", "list"], { env });
    expect(r.stdout.split("\n")[1]).toMatch(/^\*\tdefault\t/);
    r = await cli(["profiles", "use", "ro"], { env });
    expect(r.exitCode).toBe(0);
    r = await cli(["me"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("key\tsandbox read-only key");
    expect(r.stderr).toContain('Using profile "ro"');
    r = await cli(["profiles", "show", "--json"], { env });
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "ro", current: true });
    r = await cli(["logout"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('Removed profile "ro"');
    r = await cli(["profiles", "list", "--json"], { env });
    expect(JSON.parse(r.stdout).map((p: { name: string }) => p.name)).toEqual(["default"]);
  }, 180_000);
});
