// login, logout, profiles: in-process runs of the whole program against a sandbox on port 0.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "../helpers/sandbox.js";
import { scriptedPrompter } from "../helpers/fixtures.js";
import { runIn } from "../helpers/run.js";
import { useSandbox } from "../helpers/harness.js";

const box = useSandbox();

function stored(dir: string): any {
  try {
    return JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
  } catch {
    return {};
  }
}

/** A fresh config dir and an env that points only at it (no key, no URL). */
function fresh(extra: NodeJS.ProcessEnv = {}) {
  const dir = tempDir("pcli-id-");
  return { dir, env: { PARTNER_CLI_CONFIG_DIR: dir, ...extra } };
}

const last4 = (k: string) => `****${k.slice(-4)}`;

describe("login", () => {
  test("--api-key-stdin checks the key with GET /me, stores it, and the first profile becomes current", async () => {
    const { dir, env } = fresh();
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], {
      env,
      stdin: `${box.writeKey}\n`,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Northwind Creators");
    expect(r.stderr).toContain("America/New_York");
    expect(r.stderr).toContain('"sandbox write key"');
    expect(r.stderr).toContain("read and write");
    expect(r.stderr).toContain('profile "default"');
    expect(r.stderr).toContain("(current profile)");
    expect(r.stderr).not.toContain(box.writeKey);
    const s = stored(dir);
    expect(s.currentProfile).toBe("default");
    expect(s.profiles.default.apiKey).toBe(box.writeKey); // trailing newline trimmed
    expect(s.profiles.default.baseUrl).toBe(box.url);
    expect(s.profiles.default.organization.name).toBe("Northwind Creators");
    expect(s.profiles.default.canWrite).toBe(true);
  });

  test("a CRLF line ending and surrounding blanks are trimmed", async () => {
    const { dir, env } = fresh();
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], {
      env,
      stdin: `  ${box.writeKey}\r\n`,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(stored(dir).profiles.default.apiKey).toBe(box.writeKey);
  });

  test("an empty key on stdin is a usage error and stores nothing", async () => {
    const { dir, env } = fresh();
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], { env, stdin: "\n" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("The API key is empty");
    expect(stored(dir).profiles ?? {}).toEqual({});
  });

  test("a key of several words or lines is a usage error", async () => {
    const { env } = fresh();
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], {
      env,
      stdin: `${box.writeKey}\nsecond line\n`,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("one word");
    expect(r.stderr).not.toContain(box.writeKey);
  });

  test("a key with characters no API key has is a usage error that does not repeat it", async () => {
    const { env } = fresh();
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], {
      env,
      stdin: "sk_caf\u00e9_secret\n",
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("visible ASCII");
    expect(r.stderr).not.toContain("secret");
  });

  test("without a terminal and without --api-key-stdin it is a usage error naming --api-key-stdin", async () => {
    const { env } = fresh();
    const r = await runIn(["login", "--base-url", box.url], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--api-key-stdin");
  });

  test("--api-key-stdin with a terminal on stdin is refused (the key would echo)", async () => {
    const { dir, env } = fresh();
    const prompter = scriptedPrompter();
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], { env, tty: true, prompter });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("stdin is a terminal");
    expect(prompter.asked).toEqual([]);
    expect(stored(dir).profiles ?? {}).toEqual({});
  });

  test("with PARTNER_API_KEY set, login stores the new key and warns that the variable still wins", async () => {
    const { dir, env } = fresh();
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], {
      env: { ...env, PARTNER_API_KEY: box.readOnlyKey },
      stdin: box.writeKey,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(stored(dir).profiles.default.apiKey).toBe(box.writeKey);
    expect(r.stderr).toContain("PARTNER_API_KEY is set");
  });

  test("login without a base URL while another profile is current says how to refresh that one", async () => {
    const { env } = fresh();
    await runIn(["login", "--profile", "prod", "--base-url", box.url, "--api-key-stdin"], {
      env,
      stdin: box.writeKey,
    });
    const r = await runIn(["login", "--api-key-stdin"], { env, stdin: box.writeKey });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('No base URL for profile "default"');
    expect(r.stderr).toContain("partner-cli login --profile prod");
  });

  test("on a terminal the key is asked for with a hidden prompt", async () => {
    const { dir, env } = fresh();
    const prompter = scriptedPrompter([{ kind: "password", answer: box.readOnlyKey }]);
    const r = await runIn(["login", "--base-url", box.url], { env, tty: true, prompter });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompter.asked.map((p) => p.message)).toEqual(["API key (input hidden):"]);
    expect(r.stderr).toContain("read-only");
    expect(stored(dir).profiles.default.apiKey).toBe(box.readOnlyKey);
    expect(stored(dir).profiles.default.canWrite).toBe(false);
  });

  test("--no-input on a terminal does not prompt: usage error", async () => {
    const { env } = fresh();
    const prompter = scriptedPrompter();
    const r = await runIn(["login", "--base-url", box.url, "--no-input"], { env, tty: true, prompter });
    expect(r.exitCode).toBe(2);
    expect(prompter.asked).toEqual([]);
  });

  test("a key the service refuses (401) exits 4 and is not stored", async () => {
    const { dir, env } = fresh();
    const bad = box.sb.testKeys.revokedKey;
    const r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], { env, stdin: `${bad}\n` });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain("unauthenticated");
    expect(r.stderr).toContain("nothing was stored");
    expect(r.stderr).not.toContain(bad);
    expect(stored(dir).profiles ?? {}).toEqual({});
  });

  test("an unreachable service exits 7 and stores nothing", async () => {
    const { dir, env } = fresh({ PARTNER_RETRY_DEADLINE_MS: "200" });
    const r = await runIn(["login", "--base-url", "http://127.0.0.1:1", "--api-key-stdin"], {
      env,
      stdin: `${box.writeKey}\n`,
    });
    expect(r.exitCode).toBe(7);
    expect(stored(dir).profiles ?? {}).toEqual({});
  });

  test("without --base-url, PARTNER_BASE_URL or a stored base URL it is a usage error", async () => {
    const { env } = fresh();
    const r = await runIn(["login", "--api-key-stdin"], { env, stdin: `${box.writeKey}\n` });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--base-url");
  });

  test("base URL: --base-url beats PARTNER_BASE_URL, which beats the profile's stored one", async () => {
    const { dir, env } = fresh();
    // PARTNER_BASE_URL alone.
    let r = await runIn(["login", "--api-key-stdin"], {
      env: { ...env, PARTNER_BASE_URL: box.url },
      stdin: box.writeKey,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(stored(dir).profiles.default.baseUrl).toBe(box.url);
    // The flag wins over a dead PARTNER_BASE_URL.
    r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], {
      env: { ...env, PARTNER_BASE_URL: "http://127.0.0.1:1", PARTNER_RETRY_DEADLINE_MS: "200" },
      stdin: box.writeKey,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // Neither given: the stored base URL of that profile is reused.
    r = await runIn(["login", "--api-key-stdin"], { env, stdin: box.readOnlyKey });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('Updated profile "default"');
    expect(stored(dir).profiles.default.apiKey).toBe(box.readOnlyKey);
  });

  test("logging in again with another organization's key says the profile changed organization", async () => {
    const { dir, env } = fresh();
    await runIn(["login", "--base-url", box.url, "--api-key-stdin"], { env, stdin: box.writeKey });
    const r = await runIn(["login", "--api-key-stdin"], { env, stdin: box.sb.testKeys.otherOrgKey });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('profile "default" was for Northwind Creators; it is now for Globex Partners');
    expect(stored(dir).profiles.default.organization.name).toBe("Globex Partners");
  });

  test("a pasted API address loses its /api/partner/v1 suffix; a bad URL is a usage error", async () => {
    const { dir, env } = fresh();
    let r = await runIn(["login", "--base-url", `${box.url}/api/partner/v1/`, "--api-key-stdin"], {
      env,
      stdin: box.writeKey,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(stored(dir).profiles.default.baseUrl).toBe(box.url);
    r = await runIn(["login", "--base-url", "ftp://example.com", "--api-key-stdin"], {
      env,
      stdin: box.writeKey,
    });
    expect(r.exitCode).toBe(2);
    r = await runIn(["login", "--base-url", "not a url", "--api-key-stdin"], { env, stdin: box.writeKey });
    expect(r.exitCode).toBe(2);
  });

  test("a second profile is stored without becoming current; --json prints it with the key masked", async () => {
    const { dir, env } = fresh();
    await runIn(["login", "--base-url", box.url, "--api-key-stdin"], { env, stdin: box.writeKey });
    const r = await runIn(["login", "--profile", "ro", "--base-url", box.url, "--api-key-stdin", "--json"], {
      env,
      stdin: box.readOnlyKey,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      name: "ro",
      current: false,
      baseUrl: box.url,
      keyName: "sandbox read-only key",
      canWrite: false,
      apiKey: last4(box.readOnlyKey),
    });
    expect(r.stdout).not.toContain(box.readOnlyKey);
    expect(r.stderr).toContain('The current profile is still "default"');
    expect(stored(dir).currentProfile).toBe("default");
  });

  test("PARTNER_PROFILE names the profile login stores; a bad profile name is a usage error", async () => {
    const { dir, env } = fresh();
    let r = await runIn(["login", "--base-url", box.url, "--api-key-stdin"], {
      env: { ...env, PARTNER_PROFILE: "ci" },
      stdin: box.writeKey,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Object.keys(stored(dir).profiles)).toEqual(["ci"]);
    r = await runIn(["login", "--profile", "no spaces!", "--base-url", box.url, "--api-key-stdin"], {
      env,
      stdin: box.writeKey,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("not a valid profile name");
  });
});

describe("logout and profiles", () => {
  async function twoProfiles() {
    const f = fresh();
    await runIn(["login", "--base-url", box.url, "--api-key-stdin"], { env: f.env, stdin: box.writeKey });
    await runIn(["login", "--profile", "ro", "--base-url", box.url, "--api-key-stdin"], {
      env: f.env,
      stdin: box.readOnlyKey,
    });
    return f;
  }

  test("profiles list: name, base URL, organization, masked key, current marker; --json never holds a key", async () => {
    const { env } = await twoProfiles();
    const r = await runIn(["profiles", "list"], { env });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("current\tname\tbaseUrl\torganization\tkey\tcanWrite");
    expect(lines[1]).toBe(`*\tdefault\t${box.url}\tNorthwind Creators\t${last4(box.writeKey)}\tyes`);
    expect(lines[2]).toBe(`\tro\t${box.url}\tNorthwind Creators\t${last4(box.readOnlyKey)}\tno`);
    const j = await runIn(["profiles", "list", "--json"], { env });
    const rows = JSON.parse(j.stdout);
    expect(rows.map((p: any) => [p.name, p.current, p.apiKey])).toEqual([
      ["default", true, last4(box.writeKey)],
      ["ro", false, last4(box.readOnlyKey)],
    ]);
    expect(j.stdout).not.toContain(box.writeKey);
    expect(j.stdout).not.toContain(box.readOnlyKey);
  });

  test("profiles list with none stored: a note on stderr, an empty JSON array with --json", async () => {
    const { env } = fresh();
    const r = await runIn(["profiles", "list"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("No profiles");
    expect((await runIn(["profiles", "ls", "--json"], { env })).stdout.trim()).toBe("[]");
  });

  test("profiles use switches the current profile; an unknown name is a usage error", async () => {
    const { dir, env } = await twoProfiles();
    let r = await runIn(["profiles", "use", "ro"], { env });
    expect(r.exitCode).toBe(0);
    expect(stored(dir).currentProfile).toBe("ro");
    r = await runIn(["profile", "use", "nope"], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('No profile named "nope"');
    expect(r.stderr).toContain("default, ro");
    expect(stored(dir).currentProfile).toBe("ro");
  });

  test("profiles show: the current one by default, a named one, never the key", async () => {
    const { env } = await twoProfiles();
    let r = await runIn(["profiles", "show"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("name\tdefault");
    expect(r.stdout).toContain(`apiKey\t${last4(box.writeKey)}`);
    expect(r.stdout).not.toContain(box.writeKey);
    r = await runIn(["profiles", "show", "ro", "--json"], { env });
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: "ro",
      apiKey: last4(box.readOnlyKey),
      canWrite: false,
    });
    expect(r.stdout).not.toContain(box.readOnlyKey);
    r = await runIn(["profiles", "show", "nope"], { env });
    expect(r.exitCode).toBe(2);
  });

  test("profiles remove: refused without --yes when not on a terminal; --yes removes", async () => {
    const { dir, env } = await twoProfiles();
    let r = await runIn(["profiles", "remove", "ro"], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--yes");
    expect(Object.keys(stored(dir).profiles).sort()).toEqual(["default", "ro"]);
    r = await runIn(["profiles", "rm", "ro", "--yes"], { env });
    expect(r.exitCode).toBe(0);
    expect(Object.keys(stored(dir).profiles)).toEqual(["default"]);
    r = await runIn(["profiles", "remove", "ro", "--yes"], { env });
    expect(r.exitCode).toBe(2);
  });

  test("profiles remove on a terminal asks; no keeps it (exit 2), yes removes it", async () => {
    const { dir, env } = await twoProfiles();
    let prompter = scriptedPrompter([{ kind: "confirm", answer: false }]);
    let r = await runIn(["profiles", "remove", "ro"], { env, tty: true, prompter });
    expect(r.exitCode).toBe(2);
    expect(prompter.asked[0]?.message).toContain('Remove profile "ro"');
    expect(stored(dir).profiles.ro).toBeDefined();
    prompter = scriptedPrompter([{ kind: "confirm", answer: true }]);
    r = await runIn(["profiles", "remove", "ro"], { env, tty: true, prompter });
    expect(r.exitCode).toBe(0);
    expect(stored(dir).profiles.ro).toBeUndefined();
  });

  test("logout removes the current profile and its key and says so; then no profile is current", async () => {
    const { dir, env } = await twoProfiles();
    const r = await runIn(["logout"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('Removed profile "default"');
    expect(r.stderr).toContain(last4(box.writeKey));
    expect(r.stderr).not.toContain(box.writeKey);
    const s = stored(dir);
    expect(s.profiles.default).toBeUndefined();
    expect(s.currentProfile).toBeUndefined();
    expect(JSON.stringify(s)).not.toContain(box.writeKey);
    // Nothing current: logout needs a name now.
    const again = await runIn(["logout"], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("--profile");
  });

  test("logout --profile NAME removes that one and keeps the current; unknown names are usage errors", async () => {
    const { dir, env } = await twoProfiles();
    let r = await runIn(["logout", "--profile", "ro"], { env });
    expect(r.exitCode).toBe(0);
    expect(stored(dir).currentProfile).toBe("default");
    expect(stored(dir).profiles.ro).toBeUndefined();
    r = await runIn(["logout", "--profile", "ro"], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('No profile named "ro"');
    r = await runIn(["logout"], { env: fresh().env });
    expect(r.exitCode).toBe(2);
  });
});
