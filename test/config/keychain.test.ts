// Keys in the OS keychain, for real: a private D-Bus session with GNOME Keyring's Secret Service
// (Debian's dbus, gnome-keyring and libsecret-tools; .ci/run installs them), and the file fallback
// where no keychain answers. `secret-tool` reads the keychain independently of our library.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, useSandbox } from "../helpers/harness.js";
import { until } from "../helpers/wait.js";

const s = useSandbox({ seed: "demo" });

const hasTools = await Promise.all(
  ["dbus-daemon", "gnome-keyring-daemon", "secret-tool"].map(
    async (t) => (await execa("sh", ["-c", `command -v ${t}`], { reject: false })).exitCode === 0,
  ),
).then((all) => all.every(Boolean));
if (!hasTools && process.env.CI === "true") {
  throw new Error(
    "CI=true but dbus-daemon, gnome-keyring-daemon or secret-tool is missing (.ci/run installs them).",
  );
}

/** Env with no session bus: no keychain answers, as on a headless host. */
function headless(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { DBUS_SESSION_BUS_ADDRESS: "", ...extra };
}

function configFile(dir: string): string {
  return readFileSync(join(dir, "config.json"), "utf8");
}

async function login(dir: string, env: NodeJS.ProcessEnv, extra: string[] = []) {
  return s.cli(["login", "--api-key-stdin", ...extra], {
    configDir: dir,
    key: null,
    env: { PARTNER_API_KEY: "", ...env },
    input: `${s.writeKey}\n`,
  });
}

describe("where no keychain answers (headless)", () => {
  it("login keeps the key in the 0600 config file and says why; commands use it", async () => {
    const dir = tempDir();
    const r = await login(dir, headless());
    expect(r.exitCode).toBe(0);
    // One sentence on what was tried and where the key went instead; no raw D-Bus error.
    expect(r.stderr).toContain(
      `No OS keychain answered (tried the Secret Service (GNOME Keyring, KWallet), which needs a D-Bus session bus, and this session has none (DBUS_SESSION_BUS_ADDRESS is not set)), so the key is in ${join(dir, "config.json")} instead, readable only by you.`,
    );
    expect(r.stderr).not.toMatch(/DBus error|Platform failure|X11|autolaunch/);
    expect(r.stdout + r.stderr).not.toContain(s.writeKey);
    expect(JSON.parse(configFile(dir)).profiles.default.apiKey).toBe(s.writeKey);
    expect(statSync(join(dir, "config.json")).mode & 0o777).toBe(0o600);
    const show = await s.cli(["profiles", "show", "--json"], { configDir: dir, key: null, env: headless() });
    expect(show.json()).toMatchObject({ keyStorage: "file", apiKey: `****${s.writeKey.slice(-4)}` });
    const me = await s.cli(["me", "--json"], { configDir: dir, key: null, env: headless() });
    expect(me.exitCode).toBe(0);
  });

  it.skipIf(Boolean(process.env.DBUS_SESSION_BUS_ADDRESS))(
    "never lands in the kernel keyring, however often it is tried (gone at reboot, out of cron's reach)",
    async () => {
      const { keychainStore } = await import("../../src/config/keychain.js");
      for (let i = 0; i < 3; i++) {
        expect((await keychainStore(`probe ${i} (${tempDir()})`, "not-a-real-key")).stored).toBe(false);
      }
    },
  );

  it("a session bus where no Secret Service answers: names the bus tried, not the raw D-Bus error", async () => {
    const dir = tempDir();
    const bus = `unix:path=${join(tempDir(), "no-bus")}`;
    const r = await login(dir, { DBUS_SESSION_BUS_ADDRESS: bus });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      `No OS keychain answered (tried the Secret Service (GNOME Keyring, KWallet) on the D-Bus session bus ${bus}, and none answered there), so the key is in ${join(dir, "config.json")} instead, readable only by you.`,
    );
    expect(r.stderr).not.toMatch(/DBus error|Platform failure/);
  });

  it("--insecure-storage says the file was asked for", async () => {
    const dir = tempDir();
    const r = await login(dir, headless(), ["--insecure-storage"]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /the key is in .*config\.json \(readable only by you\), as --insecure-storage asks\./i,
    );
  });

  it("a profile written before keys could live in the keychain keeps working", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        currentProfile: "old",
        profiles: { old: { baseUrl: s.url, apiKey: s.writeKey, savedAt: "2026-01-01T00:00:00Z" } },
      }),
      { mode: 0o600 },
    );
    const me = await s.cli(["me"], { configDir: dir, key: null, env: headless() });
    expect(me.exitCode).toBe(0);
  });
});

describe.skipIf(!hasTools)("with a Secret Service (GNOME Keyring in a private D-Bus session)", () => {
  let bus: ChildProcess | undefined;
  let keyring: ChildProcess | undefined;
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    const home = tempDir("pcli-keyring-");
    const address = `unix:path=${join(home, "bus")}`;
    // A bus of our own with no service activation: nothing but our keyring daemon may answer for
    // org.freedesktop.secrets (an activated one would have no unlocked collection).
    const config = join(home, "bus.conf");
    writeFileSync(
      config,
      `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>${address}</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>`,
    );
    bus = spawn("dbus-daemon", [`--config-file=${config}`, "--nofork"], { stdio: "ignore" });
    await until(() => existsSync(join(home, "bus")), 5000, "the D-Bus socket").catch(() => {});
    env = {
      HOME: home,
      XDG_RUNTIME_DIR: home,
      XDG_DATA_HOME: join(home, "data"),
      DBUS_SESSION_BUS_ADDRESS: address,
    };
    keyring = spawn("gnome-keyring-daemon", ["--unlock", "--components=secrets", "--foreground"], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "ignore", "pipe"],
    });
    let said = "";
    keyring.stderr!.on("data", (c) => {
      said += c;
    });
    keyring.stdin!.end("test-password");
    // Ready when secret-tool can store into the login collection.
    const stored = async () => {
      const probe = await execa(
        "secret-tool",
        ["store", "--label=probe", "service", "probe", "account", "probe"],
        {
          env,
          input: "x",
          reject: false,
        },
      );
      said += probe.exitCode === 0 ? "" : `probe: ${probe.stderr}\n`;
      return probe.exitCode === 0;
    };
    await until(stored, 10_000, "GNOME Keyring", 100).catch(() => {
      throw new Error(`GNOME Keyring did not come up in the private D-Bus session: ${said}`);
    });
  });
  afterAll(() => {
    keyring?.kill();
    bus?.kill();
  });

  const lookup = (account: string) =>
    execa("secret-tool", ["lookup", "service", "partner-cli", "username", account], { env, reject: false });

  it("login stores the key in the keychain, not the file; commands read it from there", async () => {
    const dir = tempDir();
    const account = `default (${dir})`;
    const r = await login(dir, env);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      `The key is in the OS keychain (service "partner-cli", account "${account}").`,
    );
    expect(r.stdout + r.stderr).not.toContain(s.writeKey);
    const file = configFile(dir);
    expect(file).not.toContain(s.writeKey);
    expect(JSON.parse(file).profiles.default).toMatchObject({
      keyStorage: "keychain",
      keyMask: `****${s.writeKey.slice(-4)}`,
    });
    expect((await lookup(account)).stdout).toBe(s.writeKey);

    const me = await s.cli(["me", "--json"], { configDir: dir, key: null, env });
    expect(me.exitCode).toBe(0);
    expect(me.stdout + me.stderr).not.toContain(s.writeKey);
    const show = await s.cli(["profiles", "show", "--json"], { configDir: dir, key: null, env });
    expect(show.json()).toMatchObject({ keyStorage: "keychain", apiKey: `****${s.writeKey.slice(-4)}` });

    // The same profile where the keychain does not answer (cron on the same host): exit 4, nothing sent.
    const cron = await s.cli(["me"], { configDir: dir, key: null, env: headless({ HOME: env.HOME }) });
    expect(cron.exitCode).toBe(4);
    // (Which words depends on whether some other bus answers without ours; both say nothing was sent.)
    expect(cron.stderr).toMatch(
      /The key of profile "default" (is in the OS keychain, which did not answer|should be in the OS keychain, but the keychain has no entry)/,
    );
    expect(cron.stderr).toContain("Nothing was sent.");
    expect(cron.stderr).toMatch(/--insecure-storage|PARTNER_API_KEY/);
    expect(cron.stdout + cron.stderr).not.toContain(s.writeKey);
    // PARTNER_API_KEY still wins over the stored key, keychain or not.
    const withEnv = await s.cli(["me"], { configDir: dir, env: headless({ HOME: env.HOME }) });
    expect(withEnv.exitCode).toBe(0);
  });

  it("a keychain entry that went missing is exit 4 naming the entry", async () => {
    const dir = tempDir();
    expect((await login(dir, env)).exitCode).toBe(0);
    await execa("secret-tool", ["clear", "service", "partner-cli", "username", `default (${dir})`], { env });
    const me = await s.cli(["me"], { configDir: dir, key: null, env });
    expect(me.exitCode).toBe(4);
    expect(me.stderr).toMatch(/has no entry for it \(service "partner-cli", account "default \(.*\)"\)/);
  });

  it("--insecure-storage moves a keychain key into the file and removes the entry; logout forgets it", async () => {
    const dir = tempDir();
    const account = `default (${dir})`;
    expect((await login(dir, env)).exitCode).toBe(0);
    const moved = await login(dir, env, ["--insecure-storage"]);
    expect(moved.exitCode).toBe(0);
    expect(JSON.parse(configFile(dir)).profiles.default.apiKey).toBe(s.writeKey);
    expect((await lookup(account)).exitCode).not.toBe(0);

    expect((await login(dir, env)).exitCode).toBe(0);
    expect((await lookup(account)).stdout).toBe(s.writeKey);
    const out = await s.cli(["logout"], { configDir: dir, key: null, env });
    expect(out.exitCode).toBe(0);
    expect((await lookup(account)).exitCode).not.toBe(0);
  });
});
