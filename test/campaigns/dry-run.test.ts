// campaigns create / update --dry-run: every check (the offer's live ones, read-only), then the body
// that would be sent; no write request, the service's campaigns unchanged.
import { beforeEach, describe, expect, it } from "vitest";
import { campaignsCreateRun } from "../../src/commands/campaigns/create.js";
import { SEED } from "../../src/sandbox/seed.js";
import { expectOnlyReads } from "../helpers/dry-run.js";
import { makeCampaign, runFn, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { day } from "./helpers.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

const campaigns = async () => (await s.http("GET", "/campaigns")).body;
const flags = (over: string[] = []) => [
  "campaigns",
  "create",
  "--no-input",
  "--name",
  "Spring oats",
  "--offer",
  SEED.offers.oats,
  "--from",
  day(1),
  "--through",
  day(60),
  "--code-limit",
  "5,000",
  "--rate",
  "10%",
  "--unit-price",
  "$4.99",
  ...over,
];

describe("campaigns create --dry-run", () => {
  it("prints the POST body after the offer's checks, says it would activate, creates nothing", async () => {
    const r = await s.run(
      flags(["--external-reference", "spring", "--activate", "--dry-run", "--json", "--verbose"]),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual({
      dryRun: true,
      request: {
        method: "POST",
        path: "/campaigns",
        body: {
          name: "Spring oats",
          baseGs1: SEED.offers.oats,
          dates: { from: day(1), through: day(60) },
          codeLimit: 5000,
          commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
          externalReference: "spring",
        },
      },
      activate: true,
    });
    expect(r.stderr).toMatch(/would create this campaign \(POST \/campaigns\) and then activate it/);
    // The offer was read (its live checks), nothing else was sent.
    expect(expectOnlyReads(r.stderr)).toContain(`GET /api/partner/v1/offers/${SEED.offers.oats}`);
    expect((await campaigns()).totalCount).toBe(0);

    // A readable record without --json.
    const plain = await s.run(flags(["--dry-run"]));
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^codeLimit\t5000$/m);
    expect(plain.stdout).toMatch(/^externalReference\tpcli-/m);
    expect(plain.stderr).toMatch(/generated for this dry run/);
    expect(plain.stderr).toMatch(/as a draft\. Nothing was created\./);
    expect((await campaigns()).totalCount).toBe(0);
  });

  it("a failing check exits 2 as the real run would: a local one, and one of the offer's", async () => {
    const local = await s.run(flags(["--rate", "150%", "--dry-run", "--verbose"]));
    expect(local.exitCode).toBe(2);
    expect(local.stderr).toMatch(/--rate/);
    const offerRule = await s.run(flags(["--through", day(2000), "--dry-run", "--verbose"]));
    expect(offerRule.exitCode).toBe(2);
    expect(offerRule.stderr).toMatch(/Cannot create the campaign on offer/);
    expectOnlyReads(offerRule.stderr);
    expect((await campaigns()).totalCount).toBe(0);
  });

  it("the interactive setup asks its questions, then prints instead of creating", async () => {
    const prompter = scriptedPrompter([
      { match: /Campaign name/, answer: "Asked" },
      { match: /Commission rate/, answer: "0.1" },
      { match: /External reference/, answer: "asked" },
    ]);
    const sent: string[] = [];
    const { ctx, stdout, stderr } = s.context({ tty: true, prompter });
    const r = await runFn(
      ctx,
      () =>
        campaignsCreateRun(
          {
            offer: SEED.offers.oats,
            from: day(0),
            through: day(10),
            codeLimit: "50",
            unitPrice: "2.50",
            dryRun: true,
          },
          ctx,
        ),
      {
        intercept: (spec, call) => {
          sent.push(spec.method);
          return call(spec);
        },
      },
    );
    await ctx.close();
    expect([r.exitCode, r.error]).toEqual([0, ""]);
    expect(prompter.remaining()).toBe(0);
    expect(prompter.asked.map((p) => p.message).join("|")).not.toMatch(
      /Create this campaign|Activate|share link/,
    );
    expect(stdout()).toMatch(/^name +Asked$/m);
    expect(stderr()).toMatch(/a real run then asks whether to activate it/);
    expect(sent.filter((m) => m !== "GET")).toEqual([]);
    expect((await campaigns()).totalCount).toBe(0);
  });
});

describe("campaigns update --dry-run", () => {
  it("prints the changed fields beside the current values and changes nothing", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "upd", codeLimit: 100 });
    const before = (await s.http("GET", `/campaigns/${c.id}`)).body;
    const r = await s.run([
      "campaigns",
      "update",
      "upd",
      "--code-limit",
      "800",
      "--rate",
      "12%",
      "--dry-run",
      "--json",
      "--verbose",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({
      dryRun: true,
      campaign: { id: c.id, externalReference: "upd" },
      request: {
        method: "PATCH",
        path: `/campaigns/${c.id}`,
        body: { codeLimit: 800, commission: { rate: 0.12 } },
      },
    });
    expect(out.changes).toEqual([
      { field: "codeLimit", current: 100, new: 800 },
      { field: "commission.rate", current: 0.1, new: 0.12 },
    ]);
    expectOnlyReads(r.stderr);
    expect((await s.http("GET", `/campaigns/${c.id}`)).body).toEqual(before);

    const plain = await s.run(["campaigns", "update", "upd", "--no-retailer", "--name", "New", "--dry-run"]);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^name\tTest campaign → New$/m);
    expect(plain.stdout).toMatch(/^retailer\tnone → none$/m);
    expect(plain.stderr).toMatch(/would update campaign "Test campaign" \(upd\).*Nothing was changed\./);
    expect((await s.http("GET", `/campaigns/${c.id}`)).body).toEqual(before);
  });

  it("a failing check exits 2 as the real run would", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "upd2" });
    const before = (await s.http("GET", `/campaigns/${c.id}`)).body;
    const r = await s.run(["campaigns", "update", "upd2", "--code-limit", "0", "--dry-run"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Cannot update .*--code-limit/s);
    expect((await s.http("GET", `/campaigns/${c.id}`)).body).toEqual(before);
  });
});
