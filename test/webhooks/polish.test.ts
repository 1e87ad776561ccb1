// Issue 26, webhook items: an unknown --events type lists the 8 types once (8); an invalid signature
// under --json has its own error code, signature_mismatch (9); `webhooks register` is `create` (21).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/spec/events.js";
import { expectOnlyReads, filesUnder } from "../helpers/dry-run.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

const s = useSandbox({ seed: "empty" });
beforeEach(async () => {
  const list = await s.http("GET", "/webhooks");
  for (const w of list.body.items) await s.http("DELETE", `/webhooks/${w.id}`);
});
const URL_OK = "https://hooks.example.com/partner";
const endpoints = async () => (await s.http("GET", "/webhooks")).body.items;
const count = (text: string, part: string) => text.split(part).length - 1;

describe("webhooks polish (issue 26: 8, 9, 21)", () => {
  it("an unknown --events type lists the supported types once", async () => {
    const r = await s.run(["webhooks", "create", "--url", URL_OK, "--events", "bogus.type"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('"bogus.type" is not a supported type');
    for (const t of EVENT_TYPES) expect(count(r.stderr, t), t).toBe(1);
    expect(r.stderr).toContain('"partner-cli events types"');
    // A case slip names the near type and still lists them once (in the hint).
    const c = await s.run(["webhooks", "create", "--url", URL_OK, "--events", "Code.Issued"]);
    expect(c.exitCode).toBe(2);
    expect(count(c.stderr, "campaign.supply_exhausted")).toBe(1);
    expect(await endpoints()).toEqual([]);
  });

  it("an invalid signature with --json: error code signature_mismatch, exit 3", async () => {
    const dir = tempDir("pcli-sigcode-");
    const secretFile = join(dir, "secret");
    writeFileSync(secretFile, "whsec_current0000000000000000000000000\n", { mode: 0o600 });
    const body = join(dir, "body.json");
    writeFileSync(body, '{"id":"x"}');
    const t = Math.floor(Date.now() / 1000);
    const r = await s.run([
      "webhooks",
      "verify",
      "--secret-file",
      secretFile,
      "--header",
      `t=${t},v1=${"0".repeat(64)}`,
      "--body",
      body,
      "--json",
    ]);
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: false });
    const err = JSON.parse(r.stderr.trim().split("\n").at(-1)!);
    expect(err).toMatchObject({ error: { code: "signature_mismatch" }, exitCode: 3 });
  });

  it("webhooks register is create", async () => {
    const dir = tempDir();
    const file = join(dir, "hook.secret");
    const args = ["webhooks", "register", "--url", URL_OK, "--events", "code.issued"];
    const dry = await s.run([...args, "--secret-file", file, "--dry-run", "--verbose"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(expectOnlyReads(dry.stderr)).toEqual(["GET /api/partner/v1/webhooks"]);
    expect(filesUnder(dir)).toEqual({});
    const r = await s.run([...args, "--secret-file", file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await endpoints()).map((w: { url: string }) => w.url)).toEqual([URL_OK]);
    const help = await s.run(["webhooks", "--help"]);
    expect(help.stdout + help.stderr).toMatch(/create\|register/);
  });
});
