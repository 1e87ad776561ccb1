// webhooks create --dry-run: the URL, the event types and --secret-file are checked, the endpoints
// read; nothing is registered, no secret generated or printed, no file written.
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
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

describe("webhooks create --dry-run", () => {
  it("prints the request, registers nothing, creates no secret file", async () => {
    const dir = tempDir();
    const file = join(dir, "hook.secret");
    const args = ["webhooks", "create", "--url", URL_OK, "--events", "code.issued,redemption.recorded"];
    const r = await s.run([...args, "--secret-file", file, "--dry-run", "--json", "--verbose"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual({
      dryRun: true,
      request: {
        method: "POST",
        path: "/webhooks",
        body: { url: URL_OK, eventTypes: ["code.issued", "redemption.recorded"] },
      },
      secretFile: file,
      endpoints: { existing: 0, limit: 5 },
    });
    expect(r.stderr).toContain("Nothing was registered, no secret was generated");
    expect(r.stdout + r.stderr).not.toMatch(/whsec_/);
    expect(expectOnlyReads(r.stderr)).toEqual(["GET /api/partner/v1/webhooks"]);
    expect(await endpoints()).toEqual([]);
    expect(filesUnder(dir)).toEqual({}); // no secret file, no temp file

    // Without --json: a readable account on stderr, nothing on stdout, still nothing registered.
    const plain = await s.run([...args, "--dry-run"]);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toBe("");
    expect(plain.stderr).toMatch(/would register an endpoint for https:\/\/hooks\.example\.com\/partner/);
    expect(plain.stderr).toContain("printed on stdout once");
    expect(await endpoints()).toEqual([]);
  });

  it("a failing check exits 2 as a real run would, touching nothing", async () => {
    const dir = tempDir();
    const file = join(dir, "hook.secret");
    writeFileSync(file, "old secret\n");
    const before = filesUnder(dir);
    const badUrl = await s.run([
      "webhooks",
      "create",
      "--url",
      "http://hooks.example.com/x",
      "--events",
      "code.issued",
      "--dry-run",
    ]);
    expect(badUrl.exitCode).toBe(2);
    expect(badUrl.stderr).toMatch(/--url must use https/);
    const badType = await s.run([
      "webhooks",
      "create",
      "--url",
      URL_OK,
      "--events",
      "code.nope",
      "--dry-run",
    ]);
    expect(badType.exitCode).toBe(2);
    expect(badType.stderr).toMatch(/--events: /);
    const exists = await s.run([
      "webhooks",
      "create",
      "--url",
      URL_OK,
      "--events",
      "code.issued",
      "--secret-file",
      file,
      "--dry-run",
    ]);
    expect(exists.exitCode).toBe(2);
    expect(exists.stderr).toMatch(/already exists/);
    expect(filesUnder(dir)).toEqual(before);
    expect(await endpoints()).toEqual([]);
  });
});
