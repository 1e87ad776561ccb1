// Which service and key a command uses: --sandbox / PARTNER_SANDBOX > flag > environment > stored
// profile > the embedded sandbox at a terminal (--profile, PARTNER_PROFILE, PARTNER_API_KEY,
// PARTNER_BASE_URL, --base-url), observed with `me --json --verbose` against two sandboxes on port 0
// (each has its own organization and keys). Without a terminal and without credentials: exit 4.
import { readdirSync } from "node:fs";
import { beforeAll, describe, expect, test } from "vitest";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { runIn } from "../helpers/run.js";

const a = useSandbox();
const b = useSandbox();
let dir: string;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  dir = tempDir("pcli-prec-");
  const env = { PARTNER_CLI_CONFIG_DIR: dir };
  // Profile "a" (current): sandbox A's write key. Profile "b": sandbox B's read-only key.
  let r = await runIn(["login", "--profile", "a", "--base-url", a.url, "--api-key-stdin", "--json"], {
    env,
    stdin: a.writeKey,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  orgA = JSON.parse(r.stdout).organization.id;
  r = await runIn(["login", "--profile", "b", "--base-url", b.url, "--api-key-stdin", "--json"], {
    env,
    stdin: b.readOnlyKey,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  orgB = JSON.parse(r.stdout).organization.id;
  expect(orgA).not.toBe(orgB);
});

async function me(args: string[], env: NodeJS.ProcessEnv = {}, o: { tty?: boolean } = {}) {
  const r = await runIn(["me", "--json", "--verbose", ...args], {
    env: { PARTNER_CLI_CONFIG_DIR: dir, PARTNER_RETRY_DEADLINE_MS: "300", ...env },
    ...o,
  });
  const body = r.exitCode === 0 ? JSON.parse(r.stdout) : undefined;
  const url = /> GET (\S+)\/api\/partner\/v1\/me/.exec(r.stderr)?.[1];
  // With --json a failure is one JSON object on stderr: its message and hint, read back as lines.
  const stderr = r.stderr
    .split("\n")
    .map((line) => {
      if (!line.startsWith('{"error"')) return line;
      const e = JSON.parse(line).error;
      return [e.message, e.hint].filter(Boolean).join("\n");
    })
    .join("\n");
  return {
    ...r,
    stderr,
    org: body?.organization.id as string | undefined,
    keyName: body?.key.name as string | undefined,
    url,
  };
}

describe("target precedence", () => {
  test("the current stored profile is used by default, and me says so on stderr", async () => {
    const r = await me([]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect([r.org, r.keyName, r.url]).toEqual([orgA, "sandbox write key", a.url]);
    expect(r.stderr).toContain(`Using profile "a" (${a.url}).`);
  });

  test("PARTNER_PROFILE beats the current profile", async () => {
    const r = await me([], { PARTNER_PROFILE: "b" });
    expect([r.org, r.keyName, r.url]).toEqual([orgB, "sandbox read-only key", b.url]);
    expect(r.stderr).toContain('Using profile "b"');
  });

  test("--profile beats PARTNER_PROFILE", async () => {
    const r = await me(["--profile", "a"], { PARTNER_PROFILE: "b" });
    expect([r.org, r.url]).toEqual([orgA, a.url]);
  });

  test("an empty PARTNER_PROFILE counts as unset", async () => {
    const r = await me([], { PARTNER_PROFILE: "" });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.org).toBe(orgA);
  });

  test("an unknown --profile or PARTNER_PROFILE is a usage error", async () => {
    let r = await me(["--profile", "nope"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('No profile named "nope"');
    r = await me([], { PARTNER_PROFILE: "nope" });
    expect(r.exitCode).toBe(2);
  });

  test("PARTNER_API_KEY beats the stored key (the profile's base URL still applies)", async () => {
    const r = await me([], { PARTNER_API_KEY: a.readOnlyKey });
    expect(r.exitCode, r.stderr).toBe(0);
    expect([r.org, r.keyName, r.url]).toEqual([orgA, "sandbox read-only key", a.url]);
    expect(r.stderr).toContain("PARTNER_API_KEY");
    expect(r.stderr).not.toContain(a.readOnlyKey);
  });

  test("a PARTNER_API_KEY that cannot be a key is a usage error, not a network error", async () => {
    const r = await me([], { PARTNER_API_KEY: "sk_with space_secret" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("PARTNER_API_KEY");
    expect(r.stderr).not.toContain("secret");
  });

  test("PARTNER_BASE_URL beats the profile's base URL", async () => {
    // Profile a's key sent to sandbox B: B does not know it (401, exit 4), which shows B was asked.
    let r = await me([], { PARTNER_BASE_URL: b.url });
    expect(r.url).toBe(b.url);
    expect(r.exitCode).toBe(4);
    r = await me([], { PARTNER_BASE_URL: b.url, PARTNER_API_KEY: b.writeKey });
    expect(r.exitCode, r.stderr).toBe(0);
    expect([r.org, r.keyName, r.url]).toEqual([orgB, "sandbox write key", b.url]);
  });

  test("--base-url beats PARTNER_BASE_URL", async () => {
    const r = await me(["--base-url", a.url], { PARTNER_BASE_URL: b.url, PARTNER_API_KEY: a.writeKey });
    expect(r.exitCode, r.stderr).toBe(0);
    expect([r.org, r.url]).toEqual([orgA, a.url]);
  });

  test("--base-url beats the profile named by --profile", async () => {
    const r = await me(["--profile", "b", "--base-url", a.url]);
    // B's read-only key sent to A: refused, which shows A was asked.
    expect(r.url).toBe(a.url);
    expect(r.exitCode).toBe(4);
  });

  test("with PARTNER_API_KEY and no profile, the base URL must come from the flag or the environment", async () => {
    const empty = { PARTNER_CLI_CONFIG_DIR: tempDir("pcli-prec-empty-") };
    let r = await me([], { ...empty, PARTNER_API_KEY: a.writeKey });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("PARTNER_BASE_URL");
    r = await me([], { ...empty, PARTNER_API_KEY: a.writeKey, PARTNER_BASE_URL: `${a.url}/` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect([r.org, r.url]).toEqual([orgA, a.url]);
    expect(r.stderr).toContain(`Using the key in PARTNER_API_KEY against ${a.url}`);
  });

  test("a refused key (exit 4) names which key it was and where the URL came from", async () => {
    // Profile a's key sent to B (URL from PARTNER_BASE_URL).
    let r = await me([], { PARTNER_BASE_URL: b.url });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(
      `Check the key of profile "a" (run "partner-cli login --profile a" to replace it) and that ${b.url} (from PARTNER_BASE_URL) is the service it belongs to.`,
    );
    // Profile b's key sent to A (URL from --base-url).
    r = await me(["--profile", "b", "--base-url", a.url]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(`and that ${a.url} (from --base-url) is the service`);
    // A key in PARTNER_API_KEY sent to the current profile's URL.
    r = await me([], { PARTNER_API_KEY: b.writeKey });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(
      `Check the key in PARTNER_API_KEY (it wins over any stored key) and that ${a.url} (from profile "a") is the service it belongs to.`,
    );
    expect(r.stderr).not.toContain(b.writeKey);
  });

  test("a base URL without any key is a usage error naming the URL's source; a malformed one too", async () => {
    const empty = { PARTNER_CLI_CONFIG_DIR: tempDir("pcli-prec-empty-") };
    let r = await me([], { ...empty, PARTNER_BASE_URL: a.url });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("no API key");
    expect(r.stderr).toContain("A base URL was given (PARTNER_BASE_URL) but no API key.");
    r = await me(["--base-url", a.url], { ...empty, PARTNER_APIKEY: "sk_not_shown" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("A base URL was given (--base-url) but no API key.");
    expect(r.stderr).toContain("PARTNER_APIKEY (did you mean PARTNER_API_KEY?)");
    expect(r.stderr).not.toContain("sk_not_shown");
    r = await me(["--base-url", "ftp://x"], { PARTNER_API_KEY: a.writeKey });
    expect(r.exitCode).toBe(2);
  });

  test("no profile and no PARTNER_API_KEY at a terminal: the embedded sandbox, announced on stderr", async () => {
    const empty = tempDir("pcli-prec-embedded-");
    const r = await me([], { PARTNER_CLI_CONFIG_DIR: empty }, { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("Using the embedded sandbox (no profile or PARTNER_API_KEY)");
    expect(r.stderr).toContain(empty);
    expect(r.keyName).toBe("sandbox write key");
  });

  test("at a terminal, a look-alike variable is named under the sandbox notice (not its value)", async () => {
    const empty = tempDir("pcli-prec-embedded-");
    const r = await me(
      [],
      { PARTNER_CLI_CONFIG_DIR: empty, PARTNER_API_TOKEN: "sk_tty_secret" },
      { tty: true },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /Using the embedded sandbox \(no profile or PARTNER_API_KEY\).*\nThis variable is set but is not one partner-cli reads: PARTNER_API_TOKEN \(did you mean PARTNER_API_KEY\?\)\./,
    );
    expect(r.stderr).not.toContain("sk_tty_secret");
  });

  test("no profile and no PARTNER_API_KEY without a terminal: exit 4, nothing started or written", async () => {
    const empty = tempDir("pcli-prec-none-");
    const r = await me([], { PARTNER_CLI_CONFIG_DIR: empty });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.url).toBeUndefined();
    expect(r.stderr).toContain("No API key");
    expect(r.stderr).toContain("partner-cli login");
    expect(r.stderr).toContain("--sandbox");
    expect(r.stderr).toContain("PARTNER_SANDBOX=1");
    expect(r.stderr).not.toContain("Using the embedded sandbox");
    expect(readdirSync(empty)).toEqual([]);
  });

  test("a terminal on stderr alone, or on stdin alone, is not a terminal session: exit 4", async () => {
    // runIn's tty flag covers all three streams; the Context decides on stdin and stderr.
    const { testContext } = await import("../helpers/sandbox.js");
    for (const tty of [
      { stdin: true, stderr: false, stdout: true },
      { stdin: false, stderr: true, stdout: true },
    ]) {
      const empty = tempDir("pcli-prec-half-");
      const { ctx } = testContext(null, { configDir: empty, tty });
      await expect(ctx.target()).rejects.toMatchObject({ name: "ConfigError" });
      await ctx.close();
      expect(readdirSync(empty)).toEqual([]);
    }
  });
});

describe("the embedded sandbox chosen on purpose", () => {
  test("--sandbox beats the current profile, and says what it leaves unused", async () => {
    const r = await me(["--sandbox"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.keyName).toBe("sandbox write key");
    expect(r.org).not.toBe(orgA);
    expect(r.url).not.toBe(a.url);
    expect(r.stderr).toContain(
      `Using the embedded sandbox (chosen with --sandbox; profile "a" is not used); its data is in ${dir}`,
    );
  });

  test("PARTNER_SANDBOX=1 beats PARTNER_API_KEY, PARTNER_BASE_URL and PARTNER_PROFILE", async () => {
    const r = await me([], {
      PARTNER_SANDBOX: "1",
      PARTNER_API_KEY: b.writeKey,
      PARTNER_BASE_URL: b.url,
      PARTNER_PROFILE: "b",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect([r.org === orgA, r.org === orgB, r.keyName]).toEqual([false, false, "sandbox write key"]);
    expect(r.url).not.toBe(b.url);
    expect(r.stderr).toContain(
      'Using the embedded sandbox (chosen with PARTNER_SANDBOX=1; PARTNER_API_KEY, PARTNER_BASE_URL and profile "b" are not used); its data is in',
    );
    expect(r.stderr).not.toContain(b.writeKey);
  });

  test("PARTNER_SANDBOX takes 1/true/yes in any case; 0/false/no/empty are off", async () => {
    for (const v of ["1", "true", "TRUE", "yes", "Yes"]) {
      const r = await me([], { PARTNER_SANDBOX: v });
      expect(r.exitCode, `${v}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain("chosen with PARTNER_SANDBOX=");
      expect(r.keyName).toBe("sandbox write key");
    }
    for (const v of ["0", "false", "No", ""]) {
      const r = await me([], { PARTNER_SANDBOX: v });
      expect(r.exitCode, `${v}: ${r.stderr}`).toBe(0);
      expect([r.org, r.url]).toEqual([orgA, a.url]);
      expect(r.stderr).not.toContain("embedded sandbox");
    }
  });

  test("any other PARTNER_SANDBOX value is a usage error", async () => {
    const empty = tempDir("pcli-prec-maybe-");
    const r = await me([], { PARTNER_SANDBOX: "maybe", PARTNER_CLI_CONFIG_DIR: empty });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("PARTNER_SANDBOX must be 1, true or yes");
    expect(readdirSync(empty)).toEqual([]);
  });

  test("--sandbox or PARTNER_SANDBOX=1 with --base-url or --profile is a usage error", async () => {
    for (const [args, env] of [
      [["--sandbox", "--base-url", a.url], {}],
      [["--sandbox", "--profile", "a"], {}],
      [["--base-url", a.url], { PARTNER_SANDBOX: "1", PARTNER_API_KEY: a.writeKey }],
      [["--profile", "b"], { PARTNER_SANDBOX: "yes" }],
    ] as [string[], NodeJS.ProcessEnv][]) {
      const r = await me(args, env);
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.url).toBeUndefined();
      expect(r.stderr).toMatch(/chooses the embedded sandbox, and --(base-url|profile) another service/);
    }
  });

  test("--sandbox works before the command and after its arguments", async () => {
    for (const argv of [
      ["--sandbox", "roster", "get", "nobody-here"],
      ["roster", "get", "nobody-here", "--sandbox"],
    ]) {
      const r = await runIn(argv, { env: { PARTNER_CLI_CONFIG_DIR: tempDir("pcli-prec-pos-") } });
      // The sandbox answered: 404 for an unknown creator, not exit 4 (no credentials).
      expect(r.exitCode, r.stderr).toBe(5);
      expect(r.stderr).toContain("Using the embedded sandbox (chosen with --sandbox)");
    }
  });
});
