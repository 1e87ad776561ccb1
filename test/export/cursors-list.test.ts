// cursors list shows what is true (issue 26): correction cursors only for a file whose runs used
// --corrections, "atStart" yes only for a cursor that has read nothing (the first page's cursor is
// null too, with its ids handled), and the rows each correction cursor wrote.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

const s = useSandbox({ seed: "demo" });
let campaignId = "";

beforeAll(async () => {
  campaignId = (await makeCampaign(s.sb, { ...FEED, externalReference: "cursors-list" })).id;
  await simulate(s.sb, { campaign: campaignId, views: 20, claims: 9, redemptions: 7, seed: 3 });
}, 60_000);

interface CursorRow {
  feed: string;
  type: string | null;
  rows: number;
  cursor: string | null;
}

async function listed(configDir: string) {
  const json = await s.run(["cursors", "list", "--json"], { configDir });
  expect(json.exitCode, json.stderr).toBe(0);
  const tsv = await s.run(["cursors", "list"], { configDir });
  const [head, ...lines] = tsv.stdout
    .trim()
    .split("\n")
    .map((l) => l.split("\t"));
  const col = (name: string) => head!.indexOf(name);
  return {
    rows: JSON.parse(json.stdout) as CursorRow[],
    atStart: lines.map((l) => `${l[col("feed")]} ${l[col("atStart")]} ${l[col("rows")]}`),
  };
}

describe("cursors list", () => {
  it("an export without --corrections keeps only its redemption cursor, not at the start after its rows", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "plain.csv");
    const r = await s.run(["redemptions", "export", "--out", out], { configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    const l = await listed(configDir);
    expect(l.rows.map((c) => c.feed)).toEqual(["redemptions"]);
    // Seven rows on the first page: the saved cursor is still null, and yet it is not at the start.
    expect(l.rows[0]).toMatchObject({ rows: 7, cursor: null });
    expect(l.atStart).toEqual(["redemptions no 7"]);
  });

  it("--corrections adds the correction cursors, with their own rows; an empty feed's cursor is at the start", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "corr.csv");
    const first = await s.run(["redemptions", "export", "--out", out, "--corrections"], { configDir });
    expect(first.exitCode, first.stderr).toBe(0);
    let l = await listed(configDir);
    expect(l.rows.map((c) => c.feed).sort()).toEqual(["corrections", "corrections", "redemptions"]);
    expect(l.atStart.sort()).toEqual([
      expect.stringMatching(/^corrections \(.+\) yes 0$/),
      expect.stringMatching(/^corrections \(.+\) yes 0$/),
      "redemptions no 7",
    ]);
    // One exclusion: its correction cursor has read a row; a later run without --corrections keeps it.
    await simulate(s.sb, { campaign: campaignId, exclusions: 1, seed: 4 });
    const second = await s.run(["redemptions", "export", "--out", out, "--corrections"], { configDir });
    expect(second.exitCode, second.stderr).toBe(0);
    const third = await s.run(["redemptions", "export", "--out", out], { configDir });
    expect(third.exitCode, third.stderr).toBe(0);
    l = await listed(configDir);
    expect(l.rows.find((c) => c.type === "redemption.excluded")).toMatchObject({ rows: 1 });
    expect(l.atStart).toContain("corrections (redemption.excluded) no 1");
  });
});
