// partner-cli version (and --version --verbose / --json): what it is and where its files are, with
// no credentials and nothing started; and the User-Agent every request carries.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { versionArgv } from "../../src/main.js";
import { VERSION } from "../../src/version.js";
import { misbehaving } from "../api/misbehave.js";
import { cli } from "../helpers/cli.js";
import { useSandbox } from "../helpers/harness.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";

const box = useSandbox();

const UA = `partner-cli/${VERSION} (node ${process.versions.node}; ${process.platform} ${process.arch})`;

/** A config dir holding one profile "p" (its key in the file, or in the keychain). */
function configWith(keyStorage: "file" | "keychain"): string {
  const dir = tempDir("pcli-ver-");
  const profile =
    keyStorage === "file"
      ? { baseUrl: "https://partner.example.com", apiKey: "sk_test_1234", savedAt: "2026-01-01T00:00:00Z" }
      : {
          baseUrl: "https://partner.example.com",
          keyStorage,
          keyMask: "****1234",
          savedAt: "2026-01-01T00:00:00Z",
        };
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ currentProfile: "p", profiles: { p: profile }, cursors: {}, jobs: {} }),
    { mode: 0o600 },
  );
  return dir;
}

describe("partner-cli version", () => {
  it("prints version, Node, platform, arch, the directories and key storage; needs no credentials, starts and creates nothing", async () => {
    const dir = tempDir("pcli-ver-");
    const r = await runIn(["version", "--json"], { env: { PARTNER_CLI_CONFIG_DIR: dir } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.json()).toEqual({
      version: VERSION,
      commit: null,
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
      configDir: dir,
      stateDir: join(dir, "state"),
      sandboxDataDir: join(dir, "state", "sandbox"),
      profile: null,
      keyStorage: "none",
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("names where the current profile's key is kept: file, keychain, env, sandbox (the keychain is not asked)", async () => {
    const storage = async (dir: string, env: NodeJS.ProcessEnv = {}) => {
      const r = await runIn(["version", "--json"], { env: { PARTNER_CLI_CONFIG_DIR: dir, ...env } });
      expect(r.exitCode, r.stderr).toBe(0);
      return [r.json().profile, r.json().keyStorage];
    };
    expect(await storage(configWith("file"))).toEqual(["p", "file"]);
    expect(await storage(configWith("keychain"))).toEqual(["p", "keychain"]);
    expect(await storage(configWith("keychain"), { PARTNER_API_KEY: "sk_x_9999" })).toEqual(["p", "env"]);
    expect(await storage(configWith("file"), { PARTNER_SANDBOX: "1" })).toEqual([null, "sandbox"]);
    expect(await storage(configWith("file"), { PARTNER_PROFILE: "other" })).toEqual(["other", "none"]);
  });

  it("is a record on a terminal, never printing a key", async () => {
    const r = await runIn(["version"], { env: { PARTNER_CLI_CONFIG_DIR: configWith("file") } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^version\t0\.\d+\.\d+\ncommit\tunknown\nnode\t/);
    expect(r.stdout).toContain("keyStorage\tfile");
    expect(r.stdout).not.toContain("1234");
  });

  it("--version --verbose and --version --json are the version command; --version alone is not", () => {
    expect(versionArgv(["--version", "--verbose"])).toEqual(["version"]);
    expect(versionArgv(["-V", "--json"])).toEqual(["version", "--json"]);
    expect(versionArgv(["--version"])).toEqual(["--version"]);
    expect(versionArgv(["me", "--version", "--json"])).toEqual(["me", "--version", "--json"]);
  });

  it("the built CLI: --version stays one line; --version --json and version --json agree, with the commit built", async () => {
    const env = { PARTNER_CLI_CONFIG_DIR: tempDir("pcli-ver-") };
    const one = await cli(["--version"], { env });
    expect(one.stdout).toBe(VERSION);
    const a = await cli(["--version", "--json"], { env });
    const b = await cli(["version", "--json"], { env });
    expect(a.exitCode, a.stderr).toBe(0);
    expect(a.json()).toEqual(b.json());
    // Built in this git checkout: the short commit, marked when the tree had changes.
    expect(a.json().commit).toMatch(/^[0-9a-f]{7,}(-dirty)?$/);
    const verbose = await cli(["--version", "--verbose"], { env });
    expect(verbose.stdout).toContain(`commit\t${a.json().commit}\n`);
  });
});

describe("User-Agent", () => {
  it("every request says partner-cli/VERSION (node VERSION; OS ARCH)", async () => {
    const agents: (string | undefined)[] = [];
    const front = await misbehaving((req) => {
      agents.push(req.headers["user-agent"]);
      return "forward";
    }, box.url);
    try {
      const r = await runIn(["me"], {
        env: {
          PARTNER_BASE_URL: front.url,
          PARTNER_API_KEY: box.writeKey,
          PARTNER_CLI_CONFIG_DIR: tempDir(),
        },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(agents.length).toBeGreaterThan(0);
      for (const a of agents) expect(a).toBe(UA);
      expect(UA).toMatch(/^partner-cli\/\d+\.\d+\.\d+ \(node \d+\.\d+\.\d+; [a-z0-9]+ [a-z0-9]+\)$/);
    } finally {
      await front.close();
    }
  });
});
