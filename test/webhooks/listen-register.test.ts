// webhooks listen --register: an endpoint for the session, deleted on Ctrl-C and on SIGTERM; an
// endpoint that already has the URL is used and kept; the limit of 5 refused in words; the fixed
// default port.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeEach, describe, expect, it } from "vitest";
import { webhooksListenRun } from "../../src/commands/webhooks/listen.js";
import { BIN } from "../helpers/cli.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { until } from "../helpers/wait.js";
import { freePort } from "../sandbox/webhooks-receiver.js";

const s = useSandbox({ seed: "empty" });
beforeEach(async () => {
  const list = await s.http("GET", "/webhooks");
  for (const w of list.body.items) await s.http("DELETE", `/webhooks/${w.id}`);
});
const endpoints = async (): Promise<{ id: string; url: string }[]> =>
  (await s.http("GET", "/webhooks")).body.items;

async function emitIssued(): Promise<string> {
  const me = await s.http("GET", "/me");
  const org = s.sb.sandbox.org(me.body.organization.id)!;
  return s.sb.sandbox.emit(org, "code.issued", {
    claimId: "6f1c2d8e-1111-4222-8333-944445555666",
    campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" },
    creator: { externalId: "c1", name: "C" },
    issuedAt: s.sb.sandbox.clock.iso(),
  }).id;
}

/** listen in-process with `o`; returns its output and a Ctrl-C. */
function listen(o: Parameters<typeof webhooksListenRun>[0]) {
  const ac = new AbortController();
  const { ctx, stdout, stderr } = s.context({ signal: ac.signal, globals: { json: true } });
  const done = webhooksListenRun({ port: 0, out: join(tempDir(), "events.ndjson"), ...o }, ctx).finally(() =>
    ctx.close(),
  );
  return { done, stdout, stderr, stop: () => ac.abort() };
}

describe("webhooks listen --register", () => {
  it("registers the receiver for the session, receives, and deletes the endpoint on Ctrl-C", async () => {
    const l = listen({ register: true, events: "code.issued" });
    const first = JSON.parse(await until(() => l.stdout().split("\n")[0] || undefined, 10_000));
    expect(await endpoints()).toEqual([expect.objectContaining({ id: first.webhookId, url: first.url })]);
    expect(l.stderr()).toContain(
      `Registered webhook ${first.webhookId} for ${first.url} (deleted when listen stops)`,
    );
    expect(l.stderr()).not.toContain("Register it with");
    expect(l.stderr()).not.toMatch(/whsec_/);
    const id = await emitIssued();
    await until(() => l.stderr().includes(`code.issued ${id}\n`), 10_000, "the stored delivery");
    l.stop();
    await l.done;
    expect(l.stderr()).toContain(`Deleted webhook ${first.webhookId}`);
    expect(await endpoints()).toEqual([]);
  });

  it("an endpoint that already has the URL: used with --secret-file and kept; without it, exit 2", async () => {
    const url = "https://tunnel.example.com/hook";
    const reg = await s.http("POST", "/webhooks", { body: { url, eventTypes: ["code.issued"] } });
    const out = join(tempDir(), "e.ndjson");
    const r = await s.run([
      "webhooks",
      "listen",
      "--register",
      "--public-url",
      url,
      "--port",
      "0",
      "--out",
      out,
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`Webhook ${reg.body.webhook.id} already sends to ${url}`);
    expect(r.stderr).toContain("--secret-file");
    const secretFile = join(tempDir(), "secret");
    writeFileSync(secretFile, `${reg.body.secret}\n`, { mode: 0o600 });
    const l = listen({ register: true, publicUrl: url, secretFile });
    await until(() => l.stderr().includes("Ctrl-C to stop"), 10_000);
    expect(l.stderr()).toContain(`Webhook ${reg.body.webhook.id} already sends to ${url}: using it`);
    l.stop();
    await l.done;
    expect((await endpoints()).map((w) => w.id)).toEqual([reg.body.webhook.id]);
  });

  it("without --register, an endpoint that already sends to the receiver is named instead of 'Register it'", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const reg = await s.http("POST", "/webhooks", { body: { url, eventTypes: ["code.issued"] } });
    const secretFile = join(tempDir(), "secret");
    writeFileSync(secretFile, `${reg.body.secret}\n`, { mode: 0o600 });
    const l = listen({ secretFile, port });
    await until(() => l.stderr().includes("Ctrl-C to stop"), 10_000);
    expect(l.stderr()).toContain(`Webhook ${reg.body.webhook.id} already sends here.`);
    expect(l.stderr()).not.toContain("Register it with");
    l.stop();
    await l.done;
    expect((await endpoints()).map((w) => w.id)).toEqual([reg.body.webhook.id]);
  });

  it("with 5 endpoints already: a clear error naming webhooks list and delete; nothing registered", async () => {
    for (let i = 0; i < 5; i++)
      await s.http("POST", "/webhooks", {
        body: { url: `https://h${i}.example.com/`, eventTypes: ["code.issued"] },
      });
    const before = await endpoints();
    const out = join(tempDir(), "e.ndjson");
    const r = await s.run(["webhooks", "listen", "--register", "--port", "0", "--out", out]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("already has 5 of 5 webhook endpoints");
    expect(r.stderr).toContain("partner-cli webhooks list");
    expect(r.stderr).toContain("partner-cli webhooks delete ID");
    expect(await endpoints()).toEqual(before);
  });

  it("SIGTERM deletes the endpoint it registered (the built CLI); the default port is documented", async () => {
    const env = { ...s.env(), NO_COLOR: "1" };
    const child = execa("node", [BIN, "webhooks", "listen", "--register", "--port", "0", "--json"], {
      env,
      cwd: tempDir(),
      reject: false,
      stdin: "ignore",
    });
    let out = "";
    child.stdout!.on("data", (c) => {
      out += c;
    });
    const first = JSON.parse(await until(() => out.split("\n")[0] || undefined, 20_000, "the URL line"));
    expect((await endpoints()).map((w) => w.id)).toEqual([first.webhookId]);
    child.kill("SIGTERM");
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toContain(`Deleted webhook ${first.webhookId}`);
    expect(await endpoints()).toEqual([]);
    const help = await s.run(["webhooks", "listen", "--help"]);
    expect(help.stdout).toMatch(/--port <n>[\s\S]*\(default: 5757\)/);
  });
});
