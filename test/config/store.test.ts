// The config store: where it lives, file and directory modes whatever the umask, the cross-process
// lock around read-modify-write, and a clear error for a broken file.
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { configDir } from "../../src/config/paths.js";
import { ConfigStore } from "../../src/config/store.js";
import { runIn } from "../helpers/run.js";
import { bundleWorker } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/sandbox.js";

let buildDir: string;
let worker: string;

beforeAll(async () => {
  ({ worker, dir: buildDir } = await bundleWorker(
    "test/config/increment-worker.ts",
    "partner-cli-store-test",
  ));
});
afterAll(() => {
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;

describe("config location", () => {
  test("PARTNER_CLI_CONFIG_DIR, else $XDG_CONFIG_HOME/partner-cli, else ~/.config/partner-cli", () => {
    expect(configDir({ PARTNER_CLI_CONFIG_DIR: "/x/y", XDG_CONFIG_HOME: "/cfg" })).toBe("/x/y");
    expect(configDir({ XDG_CONFIG_HOME: "/cfg", HOME: "/home/u" })).toBe("/cfg/partner-cli");
    expect(configDir({ HOME: "/home/u" })).toBe("/home/u/.config/partner-cli");
    // A relative XDG_CONFIG_HOME is invalid by the XDG spec and ignored.
    expect(configDir({ XDG_CONFIG_HOME: "rel", HOME: "/home/u" })).toBe("/home/u/.config/partner-cli");
    expect(configDir({})).toBe(join(homedir(), ".config/partner-cli"));
  });
});

describe("file modes", () => {
  test("with umask 000 the directory is 0700 and the file 0600", async () => {
    const dir = join(tempDir("pcli-umask-"), "nested", "config");
    const r = await execa("sh", ["-c", `umask 000 && node "${worker}" "${dir}" 1`], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, "config.json"))).toBe(0o600);
  });

  test("an existing directory and file that are too open are tightened", async () => {
    const dir = tempDir("pcli-open-");
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "config.json"), '{"profiles":{}}');
    chmodSync(join(dir, "config.json"), 0o644);
    const store = new ConfigStore(dir);
    await store.read();
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, "config.json"))).toBe(0o600);
  });

  test("a config directory that cannot be made private is the machine's failure (exit 10)", async () => {
    const file = join(tempDir("pcli-notdir-"), "plain-file");
    writeFileSync(file, "");
    const r = await runIn(["profiles", "list"], { env: { PARTNER_CLI_CONFIG_DIR: file } });
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toContain(`Cannot use ${file} as the partner-cli config directory`);
    expect(r.stderr).toContain("PARTNER_CLI_CONFIG_DIR");
  });

  test("reading a store that does not exist writes nothing", async () => {
    const dir = tempDir("pcli-empty-");
    const store = new ConfigStore(dir);
    expect(await store.read()).toEqual({ profiles: {}, cursors: {}, jobs: {} });
    expect(() => statSync(join(dir, "config.json"))).toThrow();
  });
});

describe("locked read-modify-write", () => {
  test("3 processes x 50 increments at once: exactly 150", async () => {
    const dir = tempDir("pcli-lock-");
    const runs = await Promise.all(
      [1, 2, 3].map(() => execa("node", [worker, dir, "50"], { reject: false, timeout: 60_000 })),
    );
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    const data = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
    expect(data.cursors.counter.rows).toBe(150);
  }, 90_000);

  test("update returns what the function returns and a throw leaves the store unchanged", async () => {
    const store = new ConfigStore(tempDir("pcli-upd-"));
    expect(await store.update(() => 42)).toBe(42);
    await store.update((d) => {
      d.currentProfile = "x";
    });
    await expect(
      store.update((d) => {
        d.currentProfile = "y";
        throw new Error("nope");
      }),
    ).rejects.toThrow("nope");
    expect((await store.read()).currentProfile).toBe("x");
  });
});

describe("the file format (what the conf package wrote before stays readable and is kept)", () => {
  // A config.json as conf 14 wrote it: tab-indented JSON, keys in insertion order.
  const confWritten = `{
\t"profiles": {
\t\t"prod": {
\t\t\t"baseUrl": "https://partner.example.com",
\t\t\t"apiKey": "sk_live_0123456789abcdef",
\t\t\t"keyName": "ops",
\t\t\t"canWrite": true,
\t\t\t"savedAt": "2026-01-02T03:04:05.000Z"
\t\t}
\t},
\t"cursors": {
\t\t"prod/default": {
\t\t\t"cursor": "c_123",
\t\t\t"updatedAt": "2026-01-02T03:04:05.000Z",
\t\t\t"rows": 7
\t\t}
\t},
\t"jobs": {},
\t"currentProfile": "prod"
}`;

  test("a file written by the previous (conf-based) store reads the same, and a no-op update rewrites it byte for byte", async () => {
    const dir = tempDir("pcli-compat-");
    writeFileSync(join(dir, "config.json"), confWritten, { mode: 0o600 });
    const store = new ConfigStore(dir);
    const data = await store.read();
    expect(data.currentProfile).toBe("prod");
    expect(data.profiles.prod?.apiKey).toBe("sk_live_0123456789abcdef");
    expect(data.cursors["prod/default"]?.rows).toBe(7);
    await store.update(() => undefined);
    expect(readFileSync(join(dir, "config.json"), "utf8")).toBe(confWritten);
    expect(mode(join(dir, "config.json"))).toBe(0o600);
  });

  test("an update leaves no temporary file behind, and a failed one leaves the file's bytes unchanged", async () => {
    const dir = tempDir("pcli-tmp-");
    writeFileSync(join(dir, "config.json"), confWritten, { mode: 0o600 });
    const store = new ConfigStore(dir);
    await store.update((d) => {
      d.currentProfile = undefined;
    });
    const after = readFileSync(join(dir, "config.json"), "utf8");
    expect(JSON.parse(after).currentProfile).toBeUndefined();
    await expect(
      store.update(() => {
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    expect(readFileSync(join(dir, "config.json"), "utf8")).toBe(after);
    expect(readdirSync(dir).filter((f) => f !== "config.json")).toEqual([]);
  });
});

describe("a broken config file", () => {
  test("is an error naming the file and what to do (exit 1), not a crash", async () => {
    const dir = tempDir("pcli-broken-");
    writeFileSync(join(dir, "config.json"), "{not json");
    const r = await runIn(["profiles", "list"], { env: { PARTNER_CLI_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(join(dir, "config.json"));
    expect(r.stderr).toContain("not valid JSON");
    expect(r.stderr).not.toContain("Unexpected error");
  });
});
