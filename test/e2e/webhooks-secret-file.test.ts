// End to end (built bin, no terminal): --secret-file for webhooks create and rotate-secret.
// - A symbolic link (dangling or live) is refused before any request: exit 2, nothing registered or
//   rotated (checked in the sandbox), nothing on stdout, the link and its target untouched.
// - Secret files are 0600 whatever the umask.
// - rotate-secret --force writes the new secret and the previous one (new first); webhooks listen
//   with that file accepts deliveries signed with either.
import { createHmac } from "node:crypto";
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { type EndpointRecord, webhooksArea } from "../../src/sandbox/store.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir() });
});

let port = 1;
const url = () => `http://127.0.0.1:${port++}/hook`;
const run = (args: string[]) => cli(args, { env });

async function endpointIds(): Promise<string[]> {
  return (await s.http("GET", "/webhooks")).body.items.map((w: { id: string }) => w.id);
}

/** The sandbox's own record of an endpoint (its current and previous secret). */
function endpoint(id: string): EndpointRecord {
  for (const state of s.sb.sandbox.store.orgs.values()) {
    const ep = webhooksArea(state).endpoints.get(id);
    if (ep) return ep;
  }
  throw new Error(`no endpoint ${id}`);
}

async function register(): Promise<string> {
  const r = await s.http("POST", "/webhooks", { body: { url: url(), eventTypes: ["code.issued"] } });
  expect(r.status).toBe(201);
  return r.body.webhook.id;
}

/** A directory holding a dangling link and a live link to a file with known bytes. */
function links() {
  const dir = tempDir("pcli-secret-");
  const dangling = join(dir, "dangling.secret");
  const missing = join(dir, "nowhere", "x.secret");
  symlinkSync(missing, dangling);
  const target = join(dir, "target.txt");
  writeFileSync(target, "do not touch\n");
  const live = join(dir, "live.secret");
  symlinkSync(target, live);
  const check = () => {
    expect(readlinkSync(dangling)).toBe(missing);
    expect(existsSync(missing)).toBe(false);
    expect(readlinkSync(live)).toBe(target);
    expect(lstatSync(live).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("do not touch\n");
    // No temporary file was left behind.
    expect(readdirSync(dir).sort()).toEqual(["dangling.secret", "live.secret", "target.txt"]);
  };
  return { dir, dangling, live, check };
}

describe("--secret-file that is a symbolic link", () => {
  it("webhooks create: dangling or live, with or without --force → exit 2 before any request", async () => {
    const l = links();
    const before = await endpointIds();
    for (const file of [l.dangling, l.live]) {
      for (const force of [[], ["--force"]]) {
        const r = await run([
          "webhooks",
          "create",
          "--url",
          url(),
          "--events",
          "code.issued",
          "--secret-file",
          file,
          ...force,
        ]);
        expect(r.exitCode, `${file} ${force}`).toBe(2);
        expect(r.stdout).toBe("");
        expect(r.stderr).toMatch(/^Error: The secret file .* is a symbolic link/);
        expect(r.stderr).toContain("Nothing was sent.");
        expect(r.stderr).not.toMatch(/whsec_/);
      }
    }
    expect(
      (
        await run([
          "webhooks",
          "create",
          "--url",
          url(),
          "--events",
          "code.issued",
          "--secret-file",
          l.dangling,
        ])
      ).stderr,
    ).toMatch(/symbolic link to a missing file/);
    expect(await endpointIds()).toEqual(before);
    l.check();
  });

  it("webhooks rotate-secret: dangling or live, with or without --force → exit 2, the secret not rotated", async () => {
    const id = await register();
    const secret = endpoint(id).secret;
    const l = links();
    for (const file of [l.dangling, l.live]) {
      for (const force of [[], ["--force"]]) {
        const r = await run(["webhooks", "rotate-secret", id, "--secret-file", file, ...force]);
        expect(r.exitCode, `${file} ${force}`).toBe(2);
        expect(r.stdout).toBe("");
        expect(r.stderr).toMatch(/is a symbolic link/);
        expect(r.stderr).not.toContain(secret);
      }
    }
    expect(endpoint(id).secret).toBe(secret);
    expect(endpoint(id).previousSecret).toBeNull();
    expect((await s.http("GET", `/webhooks/${id}`)).body.webhook.previousSecretExpiresAt).toBeNull();
    l.check();
  });
});

describe("secret file modes", () => {
  const underUmask = (umask: string, args: string[]) =>
    execa("sh", ["-c", `umask ${umask}; exec "$0" "$@"`, process.execPath, BIN, ...args], {
      env: { NO_COLOR: "1", ...env },
      reject: false,
      stdin: "ignore",
    });

  for (const umask of ["000", "277"]) {
    it(`created 0600 under umask ${umask} (create and rotate-secret --force)`, async () => {
      const dir = tempDir();
      const file = join(dir, "hook.secret");
      const c = await underUmask(umask, [
        "webhooks",
        "create",
        "--url",
        url(),
        "--events",
        "code.issued",
        "--secret-file",
        file,
        "--json",
      ]);
      expect(c.exitCode, c.stderr).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const id = JSON.parse(c.stdout).webhook.id as string;
      const rot = await underUmask(umask, [
        "webhooks",
        "rotate-secret",
        id,
        "--secret-file",
        file,
        "--force",
      ]);
      expect(rot.exitCode, rot.stderr).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(["hook.secret"]);
    });
  }
});

describe("rotate-secret --force keeps the previous secret", () => {
  it("writes new then old; listen with that file verifies deliveries signed with either", async () => {
    const dir = tempDir();
    const file = join(dir, "hook.secret");
    const c = await run([
      "webhooks",
      "create",
      "--url",
      url(),
      "--events",
      "code.issued",
      "--secret-file",
      file,
      "--json",
    ]);
    expect(c.exitCode).toBe(0);
    const id = JSON.parse(c.stdout).webhook.id as string;
    const first = endpoint(id).secret;
    expect(readFileSync(file, "utf8")).toBe(`${first}\n`);

    // Without --force an existing file is refused before the rotation.
    const refused = await run(["webhooks", "rotate-secret", id, "--secret-file", file]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/already exists/);
    expect(refused.stdout).toBe("");
    expect(endpoint(id).secret).toBe(first);
    expect(readFileSync(file, "utf8")).toBe(`${first}\n`);

    const rot = await run(["webhooks", "rotate-secret", id, "--secret-file", file, "--force"]);
    expect(rot.exitCode).toBe(0);
    const ep = endpoint(id);
    expect(ep.secret).not.toBe(first);
    expect(ep.previousSecret).toBe(first);
    expect(readFileSync(file, "utf8")).toBe(`${ep.secret}\n${first}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(rot.stdout + rot.stderr).not.toContain(ep.secret);
    expect(rot.stdout + rot.stderr).not.toContain(first);
    expect(rot.stderr).toMatch(/holds the new signing secret and, on its second line, the previous one/);
    expect(rot.stderr).toMatch(/keeps signing until \d{4}-.*: receivers must keep both lines until then/);

    // webhooks listen with that file: either secret verifies; another does not.
    const out = join(dir, "events.ndjson");
    const listener = execa(
      process.execPath,
      [BIN, "webhooks", "listen", "--secret-file", file, "--port", "0", "--out", out, "--json"],
      {
        env: { NO_COLOR: "1", ...env },
        reject: false,
        stdin: "ignore",
      },
    );
    try {
      const rxUrl = await new Promise<string>((resolve, reject) => {
        let buf = "";
        listener.stdout!.on("data", (d: Buffer) => {
          buf += d;
          const line = buf.split("\n")[0];
          if (buf.includes("\n")) resolve(JSON.parse(line!).url);
        });
        listener.once("exit", () => reject(new Error("listen exited")));
      });
      const deliver = async (secret: string, n: number) => {
        const body = JSON.stringify({
          id: `00000000-0000-7000-8000-00000000000${n}`,
          type: "code.issued",
          occurredAt: "2026-11-22T01:00:00Z",
          organizationId: "0b7e6a7c-1111-4222-8333-944445555666",
          sample: false,
          data: {},
        });
        const t = Math.floor(Date.now() / 1000);
        const v1 = createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");
        const res = await fetch(rxUrl, {
          method: "POST",
          headers: {
            "content-type": "application/json; charset=utf-8",
            "service-signature": `t=${t},v1=${v1}`,
          },
          body,
        });
        return res.status;
      };
      expect(await deliver(ep.secret, 1)).toBe(200);
      expect(await deliver(first, 2)).toBe(200);
      expect(await deliver("whsec_someoneelse", 3)).toBe(400);
      expect(
        readFileSync(out, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l).id),
      ).toEqual(["00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002"]);
    } finally {
      listener.kill("SIGTERM");
      await listener;
    }
  });
});
