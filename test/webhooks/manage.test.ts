// webhooks list/get/create/update/delete/rotate-secret/test in-process against a sandbox on port 0.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { scriptedPrompter } from "../helpers/fixtures.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { type Receiver, receiver } from "../sandbox/webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });
let rx: Receiver;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  rx = await receiver();
});
afterAll(async () => {
  await rx?.close();
});
beforeEach(async () => {
  // Start every test without endpoints (the organization allows five).
  const list = await s.http("GET", "/webhooks");
  for (const w of list.body.items) await s.http("DELETE", `/webhooks/${w.id}`);
  env = s.env({}, { configDir: tempDir() });
  rx.script = [];
  rx.fallback = { status: 200 };
});

const run = (args: string[], o: Parameters<typeof runIn>[1] = {}) => runIn(args, { env, ...o });
const count = async () => (await s.http("GET", "/webhooks")).body.items.length as number;
const secretOf = (path: string) => readFileSync(path, "utf8").trim();

describe("create", () => {
  test("--secret-file: file 0600 holds the secret; it appears on no stream; duplicates refused", async () => {
    const dir = tempDir();
    const file = join(dir, "hook.secret");
    const r = await run([
      "webhooks",
      "create",
      "--url",
      rx.url,
      "--events",
      "code.issued,redemption.recorded",
      "--secret-file",
      file,
    ]);
    expect(r.exitCode).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secret = secretOf(file);
    expect(secret).toMatch(/^whsec_/);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(r.stderr).toContain(file);
    expect(r.stdout).toContain("code.issued,redemption.recorded");
    const id = (await s.http("GET", "/webhooks")).body.items[0].id as string;

    // The same URL again: a usage error naming the endpoint, before any write.
    const dup = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued"]);
    expect(dup.exitCode).toBe(2);
    expect(dup.stderr).toContain(id);
    expect(dup.stderr).toContain("--force");
    expect(await count()).toBe(1);

    // An existing secret file is refused before the request, also with a new URL.
    const again = await run([
      "webhooks",
      "create",
      "--url",
      `${rx.url}/2`,
      "--events",
      "code.issued",
      "--secret-file",
      file,
    ]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("already exists");
    expect(await count()).toBe(1);
    expect(secretOf(file)).toBe(secret);

    // --force: a second endpoint for the URL, and the file replaced atomically, still 0600.
    const forced = await run([
      "webhooks",
      "create",
      "--url",
      rx.url,
      "--events",
      "code.issued",
      "--secret-file",
      file,
      "--force",
    ]);
    expect(forced.exitCode).toBe(0);
    expect(await count()).toBe(2);
    expect(secretOf(file)).not.toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(forced.stdout + forced.stderr).not.toContain(secretOf(file));
  });

  test("without --secret-file the secret is printed once on stdout with a warning; --json puts it in the object", async () => {
    const r = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued"]);
    expect(r.exitCode).toBe(0);
    const secret = r.stdout.trim();
    expect(secret).toMatch(/^whsec_[\w-]+$/);
    expect(r.stderr).toContain("cannot be read again");
    expect(r.stderr).not.toContain(secret);

    const j = await run([
      "webhooks",
      "create",
      "--url",
      `${rx.url}/j`,
      "--events",
      "code.issued",
      "--json",
      "--verbose",
    ]);
    expect(j.exitCode).toBe(0);
    const body = JSON.parse(j.stdout);
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.webhook.url).toBe(`${rx.url}/j`);
    // The --verbose trace names the request, never the secret.
    expect(j.stderr).toContain("POST");
    expect(j.stderr).not.toContain(body.secret);
  });

  test("bad URL, unknown or wildcard types, missing flags: usage errors before any request", async () => {
    const bad = await run([
      "webhooks",
      "create",
      "--url",
      "http://example.com/hook",
      "--events",
      "code.issued",
    ]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("must use https");
    const priv = await run([
      "webhooks",
      "create",
      "--url",
      "https://10.0.0.1/hook",
      "--events",
      "code.issued",
    ]);
    expect(priv.exitCode).toBe(2);
    expect(priv.stderr).toContain("private address");
    const unknown = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued,coupon.used"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('"coupon.used" is not a supported type');
    expect(unknown.stderr).toContain("campaign.supply_exhausted");
    const caseWrong = await run(["webhooks", "create", "--url", rx.url, "--events", "Code.Issued"]);
    expect(caseWrong.exitCode).toBe(2);
    expect(caseWrong.stderr).toContain('did you mean "code.issued"');
    const wild = await run(["webhooks", "create", "--url", rx.url, "--events", "redemption.*"]);
    expect(wild.exitCode).toBe(2);
    expect(wild.stderr).toContain("wildcards");
    const missing = await run(["webhooks", "create", "--url", rx.url]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("--events");
    expect(await count()).toBe(0);
  });
});

describe("list, get, update, delete, rotate-secret", () => {
  test("the whole life of an endpoint", async () => {
    const c = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued", "--json"]);
    const { webhook, secret } = JSON.parse(c.stdout);
    const id = webhook.id as string;

    const list = await run(["webhooks", "list"]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout.split("\n")[0]).toBe("id\turl\teventTypes\tstatus\tfailingSince\tlastDeliveredAt");
    expect(list.stdout).toContain(id);
    const listJson = JSON.parse((await run(["webhooks", "list", "--json"])).stdout);
    expect(listJson.map((w: { id: string }) => w.id)).toEqual([id]);

    // A sample delivery shows in get's delivery table.
    const t = await run(["webhooks", "test", id, "--type", "code.issued", "--wait", "--timeout", "10s"]);
    expect(t.exitCode).toBe(0);
    const get = await run(["webhooks", "get", id], { tty: true });
    expect(get.exitCode).toBe(0);
    expect(get.stdout).toContain("Recent deliveries");
    expect(get.stdout).toContain("Last failure category");
    expect(get.stdout).toMatch(/code\.issued.*yes/);
    const getJson = JSON.parse((await run(["webhooks", "get", id, "--json"])).stdout);
    expect(getJson.recentDeliveries[0].sample).toBe(true);
    expect(JSON.stringify(getJson)).not.toContain(secret);

    // --enable on an enabled endpoint: a state already reached, exit 0, nothing sent.
    const updatedAt = (await s.http("GET", `/webhooks/${id}`)).body.webhook.updatedAt;
    const enabledAgain = await run(["webhooks", "update", id, "--enable"]);
    expect(enabledAgain.exitCode).toBe(0);
    expect(enabledAgain.stderr).toBe(`Webhook ${id} is already enabled; nothing changed.\n`);
    expect((await s.http("GET", `/webhooks/${id}`)).body.webhook.updatedAt).toBe(updatedAt);
    const paused = await run(["webhooks", "update", id, "--disable"]);
    expect(paused.exitCode).toBe(0);
    expect(paused.stdout).toContain("paused");
    const pausedAgain = await run(["webhooks", "update", id, "--disable"]);
    expect(pausedAgain.exitCode).toBe(0);
    expect(pausedAgain.stderr).toBe(`Webhook ${id} is already paused; nothing changed.\n`);
    // With another change too: the change is sent, the status said as already reached.
    const both = await run(["webhooks", "update", id, "--disable", "--events", "code.issued"]);
    expect(both.exitCode).toBe(0);
    expect(both.stderr).toBe(`Updated webhook ${id} (already paused).\n`);
    const resumed = await run([
      "webhooks",
      "update",
      id,
      "--enable",
      "--events",
      "code.issued,assignment.completed",
    ]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain("code.issued,assignment.completed");
    expect((await run(["webhooks", "update", id])).exitCode).toBe(2);
    expect((await run(["webhooks", "update", id, "--enable", "--disable"])).exitCode).toBe(2);
    expect((await run(["webhooks", "update", id, "--url", "https://localhost.example/#x"])).exitCode).toBe(2);

    const dir = tempDir();
    const file = join(dir, "new.secret");
    const rot = await run(["webhooks", "rotate-secret", id, "--secret-file", file]);
    expect(rot.exitCode).toBe(0);
    const fresh = secretOf(file);
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(rot.stdout + rot.stderr).not.toContain(fresh);
    expect(rot.stderr).toContain("previous secret keeps signing");
    expect(rot.stdout).toMatch(/previousSecretExpiresAt\t\d{4}-/);

    // delete: refused without --yes off a terminal, asks on one, --yes deletes.
    const refused = await run(["webhooks", "delete", id]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--yes");
    const declined = await run(["webhooks", "delete", id], {
      tty: true,
      prompter: scriptedPrompter([{ kind: "confirm", answer: false }]),
    });
    expect(declined.exitCode).toBe(2);
    expect(await count()).toBe(1);
    const asked = await run(["webhooks", "delete", id], {
      tty: true,
      prompter: scriptedPrompter([{ kind: "confirm", answer: true }]),
    });
    expect(asked.exitCode).toBe(0);
    expect(await count()).toBe(0);
    const gone = await run(["webhooks", "delete", id, "--yes"]);
    expect(gone.exitCode).toBe(5);
  });

  test("rotate-secret without a file prints the new secret once on stdout", async () => {
    const c = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued", "--json"]);
    const id = JSON.parse(c.stdout).webhook.id;
    const r = await run(["webhooks", "rotate-secret", id]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toMatch(/^whsec_/);
    expect(r.stderr).not.toContain(r.stdout.trim());
    const existing = join(tempDir(), "s");
    writeFileSync(existing, "keep\n");
    const refused = await run(["webhooks", "rotate-secret", id, "--secret-file", existing]);
    expect(refused.exitCode).toBe(2);
    expect(readFileSync(existing, "utf8")).toBe("keep\n");
    expect(existsSync(existing)).toBe(true);
  });
});

describe("test --wait", () => {
  test("delivered: exit 0; rejected: exit 3 with the category and status; paused: exit 8 at --timeout", async () => {
    const c = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued", "--json"]);
    const id = JSON.parse(c.stdout).webhook.id as string;
    const ok = await run(["webhooks", "test", id, "--type", "campaign.supply_low", "--wait", "--json"]);
    expect(ok.exitCode).toBe(0);
    const okBody = JSON.parse(ok.stdout);
    expect(okBody.state).toBe("delivered");
    expect(okBody.event.sample).toBe(true);
    expect(rx.requests.at(-1)!.headers["service-event-id"]).toBe(okBody.eventId);

    rx.fallback = { status: 500 };
    const bad = await run(["webhooks", "test", id, "--type", "code.issued", "--wait"]);
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toContain("rejected (HTTP 500)");
    expect(bad.stderr).toContain("Retries continue");

    rx.fallback = { status: 200 };
    await run(["webhooks", "update", id, "--disable"]);
    const pending = await run(["webhooks", "test", id, "--type", "code.issued", "--wait", "--timeout", "1s"]);
    expect(pending.exitCode).toBe(8);
    expect(pending.stderr).toContain("paused");

    // Without --wait the sample id is printed.
    const queued = await run(["webhooks", "test", id, "--type", "code.issued"]);
    expect(queued.exitCode).toBe(0);
    expect(queued.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
    expect((await run(["webhooks", "test", id, "--type", "nope"])).exitCode).toBe(2);
    expect((await run(["webhooks", "test", id])).exitCode).toBe(2);
  });
});

describe("lost answers", () => {
  test("create answered 500 after registering: no second endpoint, the user is told to rotate", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/webhooks", method: "POST" },
    });
    try {
      const r = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued"]);
      expect(r.exitCode).toBe(1);
      const items = (await s.http("GET", "/webhooks")).body.items;
      expect(items).toHaveLength(1);
      expect(r.stderr).toContain(`registered as ${items[0].id}`);
      expect(r.stderr).toContain(`webhooks rotate-secret ${items[0].id}`);
      expect(r.stdout).toBe("");
    } finally {
      await s.http("DELETE", "/faults", { control: true });
    }
  });

  test("create that failed before applying (reset) is repeated once and succeeds", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["reset"], pathPrefix: "/webhooks", method: "POST" },
    });
    try {
      const r = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued", "--json"]);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout).secret).toMatch(/^whsec_/);
      expect(await count()).toBe(1);
    } finally {
      await s.http("DELETE", "/faults", { control: true });
    }
  });

  test("rotate answered 500 after rotating: not repeated (that would end the old secret's overlap)", async () => {
    const c = await run(["webhooks", "create", "--url", rx.url, "--events", "code.issued", "--json"]);
    const id = JSON.parse(c.stdout).webhook.id as string;
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/webhooks", method: "POST" },
    });
    try {
      const r = await run(["webhooks", "rotate-secret", id]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain("was rotated, but the answer carrying the new secret was lost");
      const w = (await s.http("GET", `/webhooks/${id}`)).body.webhook;
      expect(w.previousSecretExpiresAt).not.toBeNull();
    } finally {
      await s.http("DELETE", "/faults", { control: true });
    }
  });
});
