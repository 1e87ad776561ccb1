import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { linksExportRun } from "../../src/commands/links/export.js";
import { linksListRun } from "../../src/commands/links/list.js";
import { linksCreateRun } from "../../src/commands/links/create.js";
import { linksGetRun } from "../../src/commands/links/get.js";
import { linksPauseRun } from "../../src/commands/links/pause.js";
import { linksResumeRun } from "../../src/commands/links/resume.js";
import { makeCampaign, runFn } from "../helpers/fixtures.js";
import type { testContext } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

const run = <T>(fn: (o: T, ctx: any) => Promise<void>, o: T, opts: Parameters<typeof testContext>[1] = {}) =>
  runFn(s, (ctx) => fn(o, ctx), opts);

const single = (verb: "get" | "create" | "pause" | "resume", externalId: string, campaign = "camp") => ({
  verb,
  campaign,
  externalId,
});

describe("links get | create | pause | resume", () => {
  it("create says created, then 'already existed (status kept)'; pause and resume via PATCH", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const first = await run(linksCreateRun, single("create", "cr-0001"), { globals: { json: true } });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toMatch(/Created the share link for cr-0001/);
    const link = JSON.parse(first.stdout);
    expect(link).toMatchObject({ creator: { externalId: "cr-0001" }, active: true });

    const paused = await run(linksPauseRun, single("pause", "cr-0001"), { globals: { json: true } });
    expect(JSON.parse(paused.stdout)).toMatchObject({ active: false });
    expect(JSON.parse(paused.stdout).deactivatedAt).not.toBeNull();

    const again = await run(linksCreateRun, single("create", "cr-0001"));
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toMatch(/already existed \(status kept: paused\)/);
    expect(again.stdout).toMatch(/^active\tno$/m);
    expect(again.stdout).toContain(`shareUrl\t${link.shareUrl}`);

    const resumed = await run(linksResumeRun, single("resume", "cr-0001"), { globals: { json: true } });
    expect(JSON.parse(resumed.stdout)).toMatchObject({ active: true, deactivatedAt: null });

    const got = await run(linksGetRun, single("get", "cr-0001"));
    expect(got.stdout).toMatch(/^shortCode\t[A-Z0-9]{4}-[A-Z0-9]{4}$/m);
  });

  it("pause on a paused link and resume on an active one: exit 0, 'already ...; nothing changed', nothing sent", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    await run(linksCreateRun, single("create", "cr-0001"));
    const p1 = await run(linksPauseRun, single("pause", "cr-0001"), { globals: { json: true } });
    expect(p1.exitCode).toBe(0);
    expect(p1.stderr).toMatch(/^Paused the share link for cr-0001 on campaign camp\.$/m);
    const pausedAt = JSON.parse(p1.stdout).deactivatedAt;
    const p2 = await run(linksPauseRun, single("pause", "cr-0001"), { globals: { json: true } });
    expect(p2.exitCode).toBe(0);
    expect(p2.stderr).toBe(
      "The share link for cr-0001 on campaign camp is already paused; nothing changed.\n",
    );
    expect(JSON.parse(p2.stdout)).toMatchObject({ active: false, deactivatedAt: pausedAt });
    const r1 = await run(linksResumeRun, single("resume", "cr-0001"));
    expect(r1.stderr).toMatch(/^Resumed the share link/);
    const r2 = await run(linksResumeRun, single("resume", "cr-0001"));
    expect(r2.exitCode).toBe(0);
    expect(r2.stderr).toBe(
      "The share link for cr-0001 on campaign camp is already active; nothing changed.\n",
    );
    expect(r2.stdout).toMatch(/^active\tyes$/m);
    // Pausing a link that does not exist is still a 404 (exit 5) with the next step.
    const none = await run(linksPauseRun, single("pause", "cr-0002"));
    expect(none.exitCode).toBe(5);
    expect(none.error).toMatch(/partner-cli links create camp cr-0002/);
  });

  it("refusals: unknown creator 404 (exit 5), deactivated creator 409 (exit 6), unknown campaign exit 5", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const unknown = await run(linksCreateRun, single("create", "nobody"));
    expect(unknown.exitCode).toBe(5);
    expect(unknown.error).toMatch(/roster get nobody/);
    const inactive = await run(linksCreateRun, single("create", "cr-0012"));
    expect(inactive.exitCode).toBe(6);
    const noLink = await run(linksGetRun, single("get", "cr-0002"));
    expect(noLink.exitCode).toBe(5);
    expect(noLink.error).toMatch(/partner-cli links create camp cr-0002/);
    const noCampaign = await run(linksGetRun, single("get", "cr-0002", "no-such-campaign"));
    expect(noCampaign.exitCode).toBe(5);
    expect(noCampaign.error).toMatch(/No campaign has the external reference "no-such-campaign"/);
  });

  it("externalIds with slashes, spaces and unicode are sent as one path segment", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const id = "a/b c%ü";
    await s.http("PUT", `/creators/${encodeURIComponent(id)}`, { body: { name: "Odd Id" } });
    const r = await run(linksCreateRun, single("create", id), { globals: { json: true } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).creator.externalId).toBe(id);
  });
});

describe("links list | export", () => {
  it("list by campaign id or reference, --active filter, --all; export as CSV to stdout or a file", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    for (const id of ["cr-0001", "cr-0002", "cr-0003"])
      await s.http("POST", `/campaigns/${c.id}/creators/${id}`);
    await s.http("PATCH", `/campaigns/${c.id}/creators/cr-0002`, { body: { active: false } });
    await s.http("PUT", "/creators/=HYPERLINK(1)", { body: { name: '@formula, "quoted"' } });
    await s.http("POST", `/campaigns/${c.id}/creators/${encodeURIComponent("=HYPERLINK(1)")}`);

    const paused = await run(linksListRun, { campaign: c.id, active: false }, { globals: { json: true } });
    expect(JSON.parse(paused.stdout).map((l: any) => l.creator.externalId)).toEqual(["cr-0002"]);
    const all = await run(linksListRun, { campaign: "camp", all: true });
    expect(all.stdout.trim().split("\n")).toHaveLength(5);
    expect(all.stdout.split("\n")[0]).toBe(
      "externalId\tname\tactive\tactiveOnRoster\tshortCode\tshareUrl\tassignedAt",
    );

    const out = await run(linksExportRun, { campaign: "camp" });
    const lines = out.stdout.trim().split("\n");
    expect(lines[0]).toBe("externalId,name,shareUrl,shortCode,statsUrl,active");
    expect(lines).toHaveLength(5);
    expect(out.stdout).toContain(`'=HYPERLINK(1),"'@formula, ""quoted"""`);
    expect(out.stdout).toMatch(/^cr-0002,.*,false$/m);
    expect(out.stderr).toMatch(/Exported 4 share links/);

    const dir = mkdtempSync(join(tmpdir(), "links-export-"));
    const file = join(dir, "links.csv");
    const f = await run(linksExportRun, { campaign: "camp", out: file });
    expect(f.exitCode).toBe(0);
    expect(f.stdout).toBe("");
    expect(readFileSync(file, "utf8")).toBe(out.stdout);
    expect(readdirSync(dir)).toEqual(["links.csv"]); // no temporary file left
  });

  it("--page and --page-size as roster list takes them; the hint offers the next page (issue 26)", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "paged" });
    for (const id of ["cr-0001", "cr-0002", "cr-0003", "cr-0004", "cr-0005"])
      await s.http("POST", `/campaigns/${c.id}/creators/${id}`);
    const r = await s.run(["links", "list", "paged", "--page", "1", "--page-size", "2", "--format", "tsv"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => l.split("\t")[0]),
    ).toEqual(["cr-0003", "cr-0004"]);
    expect(r.stderr).toContain("Showing 3-4 of 5 links (page 1); use --page 2, --limit N or --all for more.");
    const bad = await s.run(["links", "list", "paged", "--page-size", "201"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe("");
  });

  it("an empty campaign exports only the header", async () => {
    await makeCampaign(s.sb, { externalReference: "empty" });
    const out = await run(linksExportRun, { campaign: "empty" });
    expect(out.stdout).toBe("externalId,name,shareUrl,shortCode,statsUrl,active\n");
  });
});
