// links assign --dry-run: the selection worked out with read-only requests is the one the service
// answers when the same assignment is queued for real; no job, no link, no saved job, no file.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { expectOnlyReads, filesUnder } from "../helpers/dry-run.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

const linksOf = async (id: string) =>
  (await s.http("GET", `/campaigns/${id}/creators?pageSize=200`)).body.items;
const savedJobs = (configDir: string) => {
  const f = join(configDir, "config.json");
  return existsSync(f) ? (JSON.parse(readFileSync(f, "utf8")).jobs ?? {}) : {};
};

describe("links assign --dry-run", () => {
  it("selected ids: the service's selection (linked, to assign, refused and why), nothing queued", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp", creators: ["cr-0001"] });
    const dir = tempDir();
    const ids = join(dir, "ids.txt");
    writeFileSync(ids, "cr-0001\ncr-0002\nghost-1\ncr-0012\ncr-0002\n");
    const left = join(dir, "left.csv");
    const before = filesUnder(dir);
    const configDir = tempDir();
    const args = ["links", "assign", "camp", "--ids", ids, "--unassignable", left, "--json"];
    const dry = await s.run([...args, "--dry-run", "--verbose"], { configDir });
    expect(dry.exitCode, dry.stderr).toBe(0);
    const plan = dry.json();
    expect(plan).toMatchObject({
      dryRun: true,
      campaign: { id: c.id, externalReference: "camp" },
      request: {
        method: "POST",
        path: `/campaigns/${c.id}/assignments`,
        body: { externalIds: ["cr-0001", "cr-0002", "ghost-1", "cr-0012"] },
      },
    });
    expect(plan.selection).toEqual({
      scope: "selected",
      identifiersRead: 4,
      matched: 2,
      alreadyAssigned: 1,
      toAssign: 1,
      unmatched: 2,
      unmatchedSample: [
        { externalId: "ghost-1", reason: "not_on_roster" },
        { externalId: "cr-0012", reason: "inactive" },
      ],
    });
    expect(dry.stderr).toMatch(/1 would get a link, 2 would be refused .*Nothing was queued\./);
    expectOnlyReads(dry.stderr);
    expect((await linksOf(c.id)).map((l: any) => l.creator.externalId)).toEqual(["cr-0001"]);
    expect(savedJobs(configDir)).toEqual({});
    expect(filesUnder(dir)).toEqual(before); // no --unassignable file

    // The real run: the service answers the same selection.
    const real = await s.run(args, { configDir });
    expect(real.exitCode).toBe(3);
    expect(real.json().selection).toEqual(plan.selection);
  });

  it("--roster: the summary on stderr; every creator already linked → says a real run has nothing to do", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp", creators: ["cr-0001", "cr-0003"] });
    const r = await s.run(["links", "assign", "camp", "--roster", "--dry-run", "--verbose"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /Selection \(roster, whole roster\): 11 matched, 2 already have a link \(skipped\), 9 to assign, 0 not matched\./,
    );
    expect(r.stderr).toMatch(/a real run would queue a job for 9 creators/);
    expectOnlyReads(r.stderr);
    expect(await linksOf(c.id)).toHaveLength(2);

    const done = await makeCampaign(s.sb, { externalReference: "done", creators: "roster" });
    const again = await s.run(["links", "assign", "done", "--roster", "--dry-run"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /a real run would queue nothing and exit 0: every selected creator already has a link/,
    );
    expect(await linksOf(done.id)).toHaveLength(11);
  });

  it("a failing local check exits 2 as the real run would, before any request", async () => {
    const r = await s.run([
      "links",
      "assign",
      "no-such-campaign",
      "--roster",
      "--column",
      "externalId=X",
      "--dry-run",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--column says how to read the --ids file/);
  });
});
