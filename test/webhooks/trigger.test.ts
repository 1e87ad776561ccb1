// webhooks trigger TYPE: a sample through the only endpoint (or --endpoint), the delivery outcome
// waited for and shown; no endpoint or several: exit 2 with what to do, nothing sent.
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { webhooksListenRun } from "../../src/commands/webhooks/listen.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { until } from "../helpers/wait.js";

const s = useSandbox({ seed: "empty" });
beforeEach(async () => {
  const list = await s.http("GET", "/webhooks");
  for (const w of list.body.items) await s.http("DELETE", `/webhooks/${w.id}`);
});

describe("webhooks trigger", () => {
  it("sends a sample through the session's endpoint and shows its delivery", async () => {
    const ac = new AbortController();
    const listen = s.context({ signal: ac.signal, globals: { json: true } });
    const l = webhooksListenRun({ register: true, port: 0, out: join(tempDir(), "e.ndjson") }, listen.ctx);
    const first = JSON.parse(await until(() => listen.stdout().split("\n")[0] || undefined, 10_000));
    const r = await s.run(["webhooks", "trigger", "code.issued", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({ state: "delivered", event: { type: "code.issued", sample: true } });
    expect(r.stderr).toMatch(/Sample \S+ delivered at .* \(HTTP 200, 1 attempt\)/);
    await until(() => listen.stderr().includes(`code.issued ${out.eventId} sample`), 10_000);

    const again = await s.run([
      "webhooks",
      "trigger",
      "campaign.status_changed",
      "--endpoint",
      first.webhookId,
    ]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe("delivered\n");
    ac.abort();
    await l;
    await listen.ctx.close();
  });

  it("no endpoint, or several without --endpoint: exit 2 naming the way on; nothing sent", async () => {
    const none = await s.run(["webhooks", "trigger", "code.issued"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("no webhook endpoint");
    expect(none.stderr).toContain("webhooks listen --register");
    for (const h of ["a", "b"])
      await s.http("POST", "/webhooks", {
        body: { url: `https://${h}.example.com/`, eventTypes: ["code.issued"] },
      });
    const two = await s.run(["webhooks", "trigger", "code.issued"]);
    expect(two.exitCode).toBe(2);
    expect(two.stderr).toContain("has 2 webhook endpoints; say which one with --endpoint ID");
    const bad = await s.run(["webhooks", "trigger", "bogus.type"]);
    expect(bad.exitCode).toBe(2);
    const events = await s.http("GET", "/events");
    expect(events.body.items).toEqual([]);
  });
});
