// With --json a failure is one JSON object on stderr ({"error":{"code","message","details"},"exitCode"});
// --quiet leaves nothing on stderr but errors. In-process runs, credentials given explicitly.
import { beforeAll, describe, expect, it } from "vitest";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir("pcli-jerr-") });
});

/** stderr must be exactly one line holding one JSON object; returns it. */
function oneJsonLine(stderr: string): any {
  const lines = stderr.split("\n").filter((l) => l !== "");
  expect(lines, stderr).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

const createFlags = (ref: string) => [
  "campaigns",
  "create",
  "--name",
  "Quiet",
  "--offer",
  SEED.offers.oats,
  "--from",
  "2026-11-01",
  "--through",
  "2026-11-30",
  "--code-limit",
  "10",
  "--rate",
  "0.1",
  "--unit-price",
  "2",
  "--external-reference",
  ref,
];

describe("--json failures: one JSON object on stderr", () => {
  it("a usage error found by the parser (unknown option): exit 2, code usage_error, no prose", async () => {
    const r = await runIn(["offers", "list", "--json", "--bogus"], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    const e = oneJsonLine(r.stderr);
    expect(e).toEqual({
      error: {
        code: "usage_error",
        message: "unknown option '--bogus'",
        details: null,
        hint: "Run with --help for usage.",
      },
      exitCode: 2,
    });
    // Without --json: the prose of every other error, one hint naming the command's help.
    const prose = await runIn(["offers", "list", "--bogus"], { env });
    expect(prose.stderr).toBe(
      `Error: unknown option '--bogus'.\nRun "partner-cli offers list --help" for usage.\n`,
    );
  });

  it("a usage error found by the command (missing flags without a terminal)", async () => {
    const r = await runIn(["campaigns", "create", "--json", "--name", "x"], { env });
    expect(r.exitCode).toBe(2);
    const e = oneJsonLine(r.stderr);
    expect(e.exitCode).toBe(2);
    expect(e.error.code).toBe("usage_error");
    expect(e.error.message).toMatch(/^Cannot create the campaign\. Missing required flags: --offer, --from/);
    expect(e.error.hint).toMatch(/Give them as flags/);
  });

  it("an API error: the API's code, message and details, the HTTP status, exit code from the table", async () => {
    const r = await runIn(["campaigns", "get", "00000000-0000-4000-8000-000000000000", "--json"], { env });
    expect(r.exitCode).toBe(5);
    const e = oneJsonLine(r.stderr);
    expect(e).toMatchObject({ error: { code: "not_found", details: null, status: 404 }, exitCode: 5 });
    const bad = await runIn(["api", "POST", "/campaigns", "-f", "name=x", "--json"], { env });
    expect(bad.exitCode).toBe(2);
    const e2 = oneJsonLine(bad.stderr);
    expect(e2.error.code).toBe("validation_failed");
    expect(e2.error.details.baseGs1).toEqual(["is required"]);
    expect(e2.exitCode).toBe(2);
  });

  it("a network error: code network_error, exit 7", async () => {
    const r = await runIn(["offers", "list", "--json"], {
      env: { ...env, PARTNER_BASE_URL: "http://127.0.0.1:1", PARTNER_RETRY_DEADLINE_MS: "200" },
    });
    expect(r.exitCode).toBe(7);
    expect(r.stdout).toBe("");
    const e = oneJsonLine(r.stderr);
    expect(e).toMatchObject({ error: { code: "network_error", details: null }, exitCode: 7 });
    expect(e.error.message).toMatch(
      /Could not reach http:\/\/127\.0\.0\.1:1 \(PARTNER_BASE_URL\) for GET \/offers: connection refused \(ECONNREFUSED\)/,
    );
  });

  it("no credentials without a terminal: code config_error, exit 4; the key never appears", async () => {
    const r = await runIn(["offers", "list", "--json"], {
      env: { PARTNER_CLI_CONFIG_DIR: tempDir("pcli-jerr-none-") },
    });
    expect(r.exitCode).toBe(4);
    expect(oneJsonLine(r.stderr).error.code).toBe("config_error");
    const wrong = await runIn(["offers", "list", "--json"], {
      env: { ...env, PARTNER_API_KEY: "sk_sandbox_wrong-key-123456" },
    });
    expect(wrong.exitCode).toBe(4);
    expect(oneJsonLine(wrong.stderr).error.code).toBe("unauthenticated");
    expect(wrong.stderr).not.toContain("sk_sandbox_wrong-key-123456");
  });

  it("help shown with --json is still help (exit 0), not an error object", async () => {
    const r = await runIn(["campaigns", "--json"], { env });
    expect(r.stderr + r.stdout).toMatch(/Usage: partner-cli campaigns/);
    expect(r.stderr).not.toContain('{"error"');
  });
});

describe("--quiet", () => {
  it("silences notices and hints on stderr; stdout is unchanged", async () => {
    const loud = await runIn([...createFlags("loud-1")], { env });
    expect(loud.exitCode, loud.stderr).toBe(0);
    expect(loud.stderr).toMatch(/Created campaign/);
    const quiet = await runIn([...createFlags("quiet-1"), "--quiet"], { env });
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe("");
    expect(quiet.stdout).toMatch(/^externalReference\tquiet-1$/m);
    expect((await s.http("GET", "/campaigns?externalReference=quiet-1")).body.totalCount).toBe(1);
  });

  it("errors still print, in prose or (with --json) as the JSON object", async () => {
    let r = await runIn([...createFlags("quiet-1"), "--quiet"], { env });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^Error: The external reference "quiet-1" is already used/);
    r = await runIn([...createFlags("quiet-1"), "--quiet", "--json"], { env });
    expect(r.exitCode).toBe(6);
    expect(oneJsonLine(r.stderr)).toMatchObject({ error: { code: "conflict" }, exitCode: 6 });
  });
});
