// End to end (built bin, no terminal): filters take what the rest of the CLI takes. --campaign is an
// id or an external reference, --brand an id or the brand's exact name; a value that matches
// nothing is exit 5 naming it, never an empty result with exit 0 (a payout CSV once came out empty).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
let oats: string; // campaign "spring-oats" (Crunchy Oats Co.)
let soda: string; // campaign "soda-zero" (Sparkle Soda)
let crunchyId: string;

beforeAll(async () => {
  env = s.env({}, { configDir: tempDir() });
  oats = (await makeCampaign(s.sb, { ...FEED, externalReference: "spring-oats" })).id;
  // An active campaign on Sparkle Soda Zero with links for two creators.
  soda = (
    await makeCampaign(s.sb, {
      name: "Soda zero",
      baseGs1: SEED.offers.sodaZero,
      dates: { from: 0, through: 20 }, // days in New York, like the offer's window (UTC is a day ahead after 00:00 UTC)
      codeLimit: 20,
      commission: { rate: 0.05, estimatedUnitSalePrice: 2.5 },
      externalReference: "soda-zero",
      status: "active",
      creators: ["cr-0001", "cr-0002"],
    })
  ).id;
  expect((await simulate(s.sb, { campaign: oats, redemptions: 6, seed: 1 })).redemptions).toBe(6);
  expect((await simulate(s.sb, { campaign: soda, redemptions: 3, seed: 2 })).redemptions).toBe(3);
  const offers = (await s.http("GET", "/offers?pageSize=200")).body.items as {
    brand: { id: string; name: string };
  }[];
  crunchyId = offers.find((o) => o.brand.name === "Crunchy Oats Co.")!.brand.id;
});

const run = (args: string[]) => cli(args, { env });

describe("--campaign ID_OR_REF", () => {
  it("redemptions list: the reference gives the same rows as the id", async () => {
    const all = await run(["redemptions", "list", "--all", "--json"]);
    expect(JSON.parse(all.stdout)).toHaveLength(9);
    const byRef = await run(["redemptions", "list", "--campaign", "spring-oats", "--all", "--json"]);
    const byId = await run(["redemptions", "list", "--campaign", oats, "--all", "--json"]);
    expect(byRef.exitCode).toBe(0);
    expect(byId.exitCode).toBe(0);
    const rows = JSON.parse(byRef.stdout) as { campaign: { id: string } }[];
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.campaign.id === oats)).toBe(true);
    expect(byRef.stdout).toBe(byId.stdout);
    // The same through the plain (TSV) output.
    const tsvRef = await run(["redemptions", "list", "--campaign", "soda-zero"]);
    expect(tsvRef.exitCode).toBe(0);
    expect(tsvRef.stdout.trim().split("\n")).toHaveLength(1 + 3);
  });

  it("reports creators: the reference gives the same CSV as the id (the payout file is not empty)", async () => {
    const dir = tempDir();
    const byRef = await run([
      "reports",
      "creators",
      "--campaign",
      "spring-oats",
      "--out",
      join(dir, "ref.csv"),
    ]);
    const byId = await run(["reports", "creators", "--campaign", oats, "--format", "csv"]);
    expect(byRef.exitCode).toBe(0);
    expect(byId.exitCode).toBe(0);
    const file = readFileSync(join(dir, "ref.csv"), "utf8");
    expect(file).toBe(`${byId.stdout}\n`);
    const lines = file.trim().split("\n");
    expect(lines.length).toBe(1 + 11); // header + one row per link of the campaign
    expect(lines.slice(1).every((l) => l.includes(`,${oats},spring-oats,`))).toBe(true);
    const verified = lines.slice(1).reduce((n, l) => n + Number(l.split(",")[7]), 0);
    expect(verified).toBe(6);
    expect(byRef.stderr).toMatch(/Wrote 11 creator-campaign rows/);
  });

  it("a reference or id that names no campaign: exit 5 naming it, no output file, nothing on stdout", async () => {
    const out = join(tempDir(), "payouts.csv");
    const r = await run(["reports", "creators", "--campaign", "spring-oatz", "--out", out]);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Error: --campaign "spring-oatz" matches no campaign/);
    expect(r.stderr).toMatch(/campaigns list/);
    expect(existsSync(out)).toBe(false);
    const list = await run(["redemptions", "list", "--campaign", "spring-oatz"]);
    expect(list.exitCode).toBe(5);
    expect(list.stdout).toBe("");
    expect(list.stderr).toContain('"spring-oatz"');
    const uuid = "00000000-0000-4000-8000-000000000000";
    const byUuid = await run(["redemptions", "list", "--campaign", uuid, "--json"]);
    expect(byUuid.exitCode).toBe(5);
    expect(byUuid.stdout).toBe("");
    expect(byUuid.stderr).toContain(uuid);
  });
});

describe("--brand ID_OR_NAME", () => {
  it("the exact name (any case) gives the same result as the id: reports creators, reports summary, redemptions list", async () => {
    const byId = await run(["reports", "creators", "--brand", crunchyId]);
    expect(byId.exitCode).toBe(0);
    const rows = byId.stdout.trim().split("\n").slice(1);
    expect(rows).toHaveLength(11);
    expect(rows.every((l) => l.includes(`\t${crunchyId}\tCrunchy Oats Co.\t`))).toBe(true);
    for (const name of ["Crunchy Oats Co.", "crunchy oats co.", "  CRUNCHY OATS CO.  "]) {
      const byName = await run(["reports", "creators", "--brand", name]);
      expect(byName.exitCode).toBe(0);
      expect(byName.stdout).toBe(byId.stdout);
    }

    const sumId = await run(["reports", "summary", "--brand", crunchyId, "--json"]);
    const sumName = await run(["reports", "summary", "--brand", "Crunchy Oats Co.", "--json"]);
    expect(sumName.exitCode).toBe(0);
    expect(sumName.stdout).toBe(sumId.stdout);
    const summary = JSON.parse(sumName.stdout);
    expect(summary.brands.map((b: { brand: { name: string } }) => b.brand.name)).toEqual([
      "Crunchy Oats Co.",
    ]);
    expect(summary.totals.verifiedRedemptions).toBe(6);

    const redId = await run(["redemptions", "list", "--brand", crunchyId, "--all", "--json"]);
    const redName = await run(["redemptions", "list", "--brand", "Sparkle Soda", "--all", "--json"]);
    expect(JSON.parse(redId.stdout)).toHaveLength(6);
    expect(JSON.parse(redName.stdout)).toHaveLength(3);
  });

  it("a name or id that matches no brand: exit 5 naming it, no output file", async () => {
    const out = join(tempDir(), "payouts.csv");
    const r = await run(["reports", "creators", "--brand", "Crunchy Oats", "--out", out]);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Error: --brand "Crunchy Oats" matches no brand/);
    expect(r.stderr).toMatch(/offers list/);
    expect(existsSync(out)).toBe(false);
    for (const args of [
      ["reports", "summary", "--brand", "Crunchy Oats"],
      ["redemptions", "list", "--brand", "Crunchy Oats"],
      ["offers", "list", "--brand", "Crunchy Oats"],
      ["campaigns", "list", "--brand", "00000000-0000-4000-8000-000000000000"],
    ]) {
      const x = await run(args);
      expect(x.exitCode, args.join(" ")).toBe(5);
      expect(x.stdout).toBe("");
      expect(x.stderr).toContain(`--brand "${args[3]}"`);
    }
  });
});
