// webhooks listen in-process: the printed URL, one stderr line per request (stored, duplicate,
// sample, rejected), the warning about paused endpoints when nothing arrives, clean stop on Ctrl-C.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { webhooksListenRun } from "../../src/commands/webhooks/listen.js";
import { tempDir } from "../helpers/sandbox.js";
import { until } from "../sandbox/webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });

test("prints the URL, a line per request, warns about a paused endpoint, stops cleanly", async () => {
  const dir = tempDir("pcli-listen-");
  const out = join(dir, "events.ndjson");
  const secretFile = join(dir, "secret");
  const { ctx, stdout, stderr } = s.context({ globals: { json: true } });
  const ac = new AbortController();
  // The run's Ctrl-C signal, for the test.
  (ctx as unknown as { signal: AbortSignal }).signal = ac.signal;
  // Register first (the secret file must exist before listen starts), then point the endpoint at it.
  const reg = await s.http("POST", "/webhooks", {
    body: { url: "http://127.0.0.1:9/", eventTypes: ["code.issued"] },
  });
  const id = reg.body.webhook.id as string;
  writeFileSync(secretFile, `${reg.body.secret}\n`, { mode: 0o600 });
  await s.http("PATCH", `/webhooks/${id}`, { body: { active: false } });
  const running = webhooksListenRun({ secretFile, out, port: 0, quietCheckMs: 100 }, ctx);
  const { url } = JSON.parse(await until(() => stdout().split("\n")[0] || undefined));
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  await until(() => stderr().includes("paused"), 5_000);
  expect(stderr()).toContain(`${id} (http://127.0.0.1:9/)`);

  await s.http("PATCH", `/webhooks/${id}`, { body: { url, active: true } });
  const sample = await s.http("POST", `/webhooks/${id}/test`, { body: { type: "code.issued" } });
  await until(() => stderr().includes(`${sample.body.id} sample`), 5_000);
  const me = await s.http("GET", "/me");
  const org = s.sb.sandbox.org(me.body.organization.id)!;
  const ev = s.sb.sandbox.emit(org, "code.issued", {
    claimId: "6f1c2d8e-1111-4222-8333-944445555666",
    campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" },
    creator: { externalId: "c1", name: "C" },
    issuedAt: s.sb.sandbox.clock.iso(),
  });
  await until(() => stderr().includes(`code.issued ${ev.id}\n`), 5_000);
  const bad = await fetch(url, { method: "POST", body: "{}", headers: { "service-signature": "t=1,v1=00" } });
  expect(bad.status).toBe(400);
  await until(() => stderr().includes("rejected 400"), 5_000);
  expect(stderr()).not.toContain(reg.body.secret);

  ac.abort();
  await running;
  expect(stderr()).toContain("Stopped; 1 events in");
  await ctx.close();
});

test("without a secret file, or with an empty one: usage errors", async () => {
  const { ctx } = s.context();
  await expect(webhooksListenRun({}, ctx)).rejects.toThrow(/--secret-file/);
  const f = join(tempDir(), "empty");
  writeFileSync(f, "");
  await expect(webhooksListenRun({ secretFile: f }, ctx)).rejects.toThrow(/holds no secret/);
  await expect(
    webhooksListenRun({ secretFile: join(tempDir(), "s"), forwardTo: "ftp://x" }, ctx),
  ).rejects.toThrow(/Cannot read/);
  writeFileSync(f, "whsec_x\n");
  await expect(webhooksListenRun({ secretFile: f, forwardTo: "ftp://x" }, ctx)).rejects.toThrow(
    /--forward-to/,
  );
});
