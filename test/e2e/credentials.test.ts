// End to end, the built bin without a terminal (execa), as cron, CI and scripts run it: no
// credentials means exit 4 before anything is touched; the embedded sandbox only when chosen with
// --sandbox or PARTNER_SANDBOX=1; look-alike variables named, never their values. And the one
// implicit case, a person at a terminal, for real in tmux.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { hasTmux, shq, tmuxSession, tmuxSkipNote } from "../helpers/tmux.js";
import { useSandbox } from "../helpers/harness.js";

const EXAMPLE = fileURLToPath(new URL("../../docs/examples/roster.csv", import.meta.url));

/** No credentials whatever the environment the tests run in, and a private, empty config dir. */
function bare(extra: NodeJS.ProcessEnv = {}) {
  const dir = tempDir("pcli-cred-");
  const env: NodeJS.ProcessEnv = {
    PARTNER_API_KEY: undefined,
    PARTNER_BASE_URL: undefined,
    PARTNER_PROFILE: undefined,
    PARTNER_SANDBOX: undefined,
    PARTNER_CLI_CONFIG_DIR: dir,
    ...extra,
  };
  return { dir, env };
}

const s = useSandbox();

function expectNoCredentialsMessage(stderr: string) {
  expect(stderr).toContain("No API key");
  expect(stderr).toContain("partner-cli login");
  expect(stderr).toContain("PARTNER_API_KEY and PARTNER_BASE_URL");
  expect(stderr).toContain("--sandbox");
  expect(stderr).toContain("PARTNER_SANDBOX=1");
  expect(stderr).not.toContain("Using the embedded sandbox");
}

describe("no credentials, no terminal: exit 4, nothing touched", () => {
  it("roster import: exit 4, stdout empty, the ways on named, the config dir left empty", async () => {
    const { dir, env } = bare();
    const work = tempDir("pcli-cred-work-");
    const rejects = join(work, "rejects.csv");
    const r = await cli(["roster", "import", EXAMPLE, "--rejects", rejects], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe("");
    expectNoCredentialsMessage(r.stderr);
    expect(r.stderr).toContain(dir);
    // No sandbox data, no config file, no lock: nothing at all.
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(rejects)).toBe(false);
  });

  it("redemptions export --out F: exit 4 and F is not created", async () => {
    const { dir, env } = bare();
    const out = join(tempDir("pcli-cred-work-"), "redemptions.csv");
    const r = await cli(["redemptions", "export", "--out", out], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe("");
    expectNoCredentialsMessage(r.stderr);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("an existing export file keeps its bytes", async () => {
    const { env } = bare();
    const out = join(tempDir("pcli-cred-work-"), "redemptions.csv");
    const before = "id,redeemedAt\r\nr-1,2025-01-01T00:00:00Z\r\n";
    writeFileSync(out, before);
    const r = await cli(["redemptions", "export", "--out", out], { env });
    expect(r.exitCode).toBe(4);
    expect(readFileSync(out, "utf8")).toBe(before);
  });

  it("sandbox simulate | reset | advance follow the same rule", async () => {
    for (const argv of [
      ["sandbox", "simulate", "--redemptions", "3"],
      ["sandbox", "reset", "--yes"],
      ["sandbox", "advance", "1d"],
    ]) {
      const { dir, env } = bare();
      const r = await cli(argv, { env });
      expect(r.exitCode, `${argv.join(" ")}: ${r.stderr}`).toBe(4);
      expect(r.stdout).toBe("");
      expectNoCredentialsMessage(r.stderr);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it("a misspelled PARTNER_APIKEY is named, its value shown nowhere", async () => {
    const { env } = bare({ PARTNER_APIKEY: "secretvalue", partner_base_url: "https://hidden.example" });
    const r = await cli(["roster", "import", EXAMPLE], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain("PARTNER_APIKEY (did you mean PARTNER_API_KEY?)");
    expect(r.stderr).toContain("partner_base_url (did you mean PARTNER_BASE_URL?)");
    expect(`${r.stdout}${r.stderr}`).not.toContain("secretvalue");
    expect(`${r.stdout}${r.stderr}`).not.toContain("hidden.example");
  });

  it("a PARTNER_API_KEY that is set but empty is called out", async () => {
    const { env } = bare({ PARTNER_API_KEY: "" });
    const r = await cli(["me"], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain("PARTNER_API_KEY is set, but empty.");
  });

  it("commands that never talk to the API are unaffected", async () => {
    const { dir, env } = bare();
    const secret = join(tempDir("pcli-cred-work-"), "secret.txt");
    writeFileSync(secret, "whsec_test_secret_0123456789\n");
    const body = join(tempDir("pcli-cred-work-"), "body.json");
    writeFileSync(body, "{}");
    const cases: [string[], number][] = [
      [["--help"], 0],
      [["--version"], 0],
      [["roster", "import", "--help"], 0],
      [["completion", "bash"], 0],
      [["profiles", "list"], 0],
      [["cursors", "list"], 0],
      [["roster", "import", EXAMPLE, "--dry-run"], 0],
      // A signature that does not verify: exit 3, the local check ran.
      [["webhooks", "verify", "--secret-file", secret, "--header", "t=1,v1=00", "--body", body], 3],
    ];
    for (const [argv, code] of cases) {
      const r = await cli(argv, { env });
      expect(r.exitCode, `${argv.join(" ")}: ${r.stderr}`).toBe(code);
      expect(r.stderr, argv.join(" ")).not.toContain("No API key");
      expect(r.stderr, argv.join(" ")).not.toContain("Using the embedded sandbox");
    }
    expect(existsSync(join(dir, "state", "sandbox"))).toBe(false);
  });
});

describe("the embedded sandbox on purpose, without a terminal", () => {
  it("--sandbox (after the arguments or before the command) and PARTNER_SANDBOX=1 import the example roster", async () => {
    const { dir, env } = bare();
    const first = await cli(["roster", "import", EXAMPLE, "--sandbox"], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toBe("");
    expect(first.stderr).toContain(
      `Using the embedded sandbox (chosen with --sandbox); its data is in ${join(dir, "state", "sandbox")}.`,
    );
    expect(first.stderr).toMatch(/20 rows in 1 batch: 20 added/);
    const second = await cli(["--sandbox", "roster", "import", EXAMPLE], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/20 rows in 1 batch: 0 added, 0 updated, 20 unchanged/);
    const third = await cli(["roster", "import", EXAMPLE, "--json"], {
      env: { ...env, PARTNER_SANDBOX: "1" },
    });
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.stderr).toContain("Using the embedded sandbox (chosen with PARTNER_SANDBOX=1)");
    expect(JSON.parse(third.stdout).summary).toMatchObject({ rows: 20, unchanged: 20 });
    expect(existsSync(join(dir, "state", "sandbox"))).toBe(true);
  });

  it("--sandbox with a key and a base URL in the environment uses the sandbox, not that service", async () => {
    const { dir, env } = bare({ PARTNER_BASE_URL: s.url, PARTNER_API_KEY: s.writeKey });
    expect((await s.http("GET", "/creators/nw-1001")).status).toBe(404);
    const r = await cli(["roster", "import", EXAMPLE, "--sandbox"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "Using the embedded sandbox (chosen with --sandbox; PARTNER_API_KEY and PARTNER_BASE_URL are not used)",
    );
    expect(`${r.stdout}${r.stderr}`).not.toContain(s.writeKey);
    // The served sandbox did not get the roster; the embedded one did.
    expect((await s.http("GET", "/creators/nw-1001")).status).toBe(404);
    expect(existsSync(join(dir, "state", "sandbox"))).toBe(true);
  });

  it("--sandbox with a stored profile uses the sandbox, not the profile's service", async () => {
    const { env } = bare();
    const login = await cli(["login", "--profile", "prod", "--base-url", s.url, "--api-key-stdin"], {
      env,
      input: s.writeKey,
    });
    expect(login.exitCode, login.stderr).toBe(0);
    const viaProfile = JSON.parse((await cli(["me", "--json"], { env })).stdout).organization.id;
    const r = await cli(["me", "--json", "--sandbox"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Using the embedded sandbox (chosen with --sandbox; profile "prod" is not used)',
    );
    expect(JSON.parse(r.stdout).organization.id).not.toBe(viaProfile);
    const envChoice = await cli(["me", "--json"], { env: { ...env, PARTNER_SANDBOX: "true" } });
    expect(envChoice.exitCode, envChoice.stderr).toBe(0);
    expect(JSON.parse(envChoice.stdout).organization.id).toBe(JSON.parse(r.stdout).organization.id);
  });

  it("PARTNER_SANDBOX=maybe is a usage error; --sandbox with --base-url or --profile too", async () => {
    const { dir, env } = bare();
    const maybe = await cli(["roster", "import", EXAMPLE], { env: { ...env, PARTNER_SANDBOX: "maybe" } });
    expect(maybe.exitCode).toBe(2);
    expect(maybe.stdout).toBe("");
    expect(maybe.stderr).toContain("PARTNER_SANDBOX must be 1, true or yes");
    const clash = await cli(["roster", "import", EXAMPLE, "--sandbox", "--base-url", s.url], { env });
    expect(clash.exitCode).toBe(2);
    expect(clash.stderr).toContain("--sandbox chooses the embedded sandbox, and --base-url another service");
    const clash2 = await cli(["profiles", "list", "--sandbox", "--profile", "x"], { env });
    expect(clash2.exitCode).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
    expect((await s.http("GET", "/creators/nw-1001")).status).toBe(404);
  });
});

describe("a person at a terminal (tmux)", () => {
  it.skipIf(!hasTmux)(
    `me with no credentials: the embedded sandbox, announced, exit 0; with stdin not a terminal: exit 4${tmuxSkipNote}`,
    { timeout: 90_000 },
    async () => {
      const dir = tempDir("pcli-cred-tty-");
      const run = [
        "env -u PARTNER_API_KEY -u PARTNER_BASE_URL -u PARTNER_PROFILE -u PARTNER_SANDBOX",
        `PARTNER_CLI_CONFIG_DIR=${shq(dir)} NO_COLOR=1 node ${shq(BIN)} me`,
      ].join(" ");
      const t = tmuxSession(`${run}; echo EXIT1=$?; ${run} < /dev/null; echo EXIT2=$?; sleep 60`, "cred");
      try {
        const screen = await t.waitFor(/EXIT2=\d+/, "both runs to end");
        expect(screen).toContain(
          `Using the embedded sandbox (no profile or PARTNER_API_KEY); its data is in ${join(dir, "state", "sandbox")}.`,
        );
        expect(screen).toMatch(/Northwind Creators/);
        expect(screen).toMatch(/EXIT1=0/);
        // The same command with stdin from /dev/null is not a person at a terminal.
        expect(screen).toMatch(/No API key/);
        expect(screen).toMatch(/EXIT2=4/);
      } finally {
        t.kill();
      }
    },
  );
});
