import { beforeEach, describe, expect, it } from "vitest";
import { campaignsCreateRun } from "../../src/commands/campaigns/create.js";
import { day } from "./helpers.js";
import { runFn, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

const brandOf = async (baseGs1: string) => (await s.http("GET", `/offers/${baseGs1}`)).body.brand;

describe("campaigns create: interactive setup", () => {
  it("walks brand, offer, name, dates, limit, retailer, commission, reference; creates, activates, assigns the roster", async () => {
    const soda = await brandOf(SEED.offers.sodaRetail);
    const prompter = scriptedPrompter([
      { match: /^Brand$/, answer: soda.id },
      { match: /^Offer$/, answer: SEED.offers.sodaRetail },
      { match: /Campaign name/, answer: "Soda summer" },
      { match: /First day/, answer: day(2) },
      { match: /Last day/, answer: day(40) },
      { match: /Code limit/ }, // default: min(1000, codesAvailable)
      { match: /Retailer \(this offer requires one\)/, answer: "cornerstore.example" },
      { match: /Retailer name for cornerstore\.example/, answer: "Corner Store" },
      { match: /Commission rate/, answer: "0.125" },
      { match: /unit sale price/, answer: "3.99" },
      { match: /External reference/, answer: "soda-summer" },
      { match: /Create this campaign\?/, answer: true },
      { match: /Activate the campaign now\?/, answer: true },
      { match: /roster a share link now\?/, answer: true },
    ]);
    const { ctx, stdout, stderr } = s.context({ tty: true, prompter });
    const r = await runFn(ctx, () => campaignsCreateRun({}, ctx));
    await ctx.close();
    expect([r.exitCode, r.error]).toEqual([0, ""]);
    expect(prompter.remaining()).toBe(0);

    // The choices shown: brands (one without distributable offers is disabled), offers with their facts.
    const brandPrompt = prompter.asked[0]!;
    expect(brandPrompt.choices!.find((c) => c.name === "Trailside Snacks")?.disabled).toBeTruthy();
    const offerPrompt = prompter.asked[1]!;
    expect(offerPrompt.choices!.map((c) => c.value)).toEqual(
      expect.arrayContaining([SEED.offers.sodaRetail]),
    );
    expect(offerPrompt.choices![0]!.description).toMatch(
      /savings \$2\.00 off · redeemable .* · 2,000 codes available · retailer required/,
    );
    expect(prompter.asked.find((p) => /Code limit/.test(p.message))?.default).toBe("1000");
    // rate × price = 0.49875 → four places, ties to even: 0.4988
    expect(stderr()).toContain("Estimated commission per redemption: $0.4988");
    expect(stderr()).toMatch(/Summary[\s\S]*Soda summer[\s\S]*cornerstore\.example \(Corner Store\)/);

    const c = (await s.http("GET", "/campaigns?externalReference=soda-summer")).body.items[0];
    expect(c).toMatchObject({
      name: "Soda summer",
      status: "active",
      dates: { from: day(2), through: day(40) },
      codes: { limit: 1000 },
      retailer: { emailDomain: "cornerstore.example", name: "Corner Store" },
      commission: { rate: 0.125, estimatedUnitSalePrice: 3.99, estimatedPerRedemption: 0.4988 },
    });
    expect(stdout()).toMatch(/^status\s+active$/m);
    expect(stdout()).not.toMatch(/jobId/); // stdout holds the campaign only; the job summary is on stderr
    // The demo roster has 11 active creators: all got links.
    const links = await s.http("GET", `/campaigns/${c.id}/creators`);
    expect(links.body.totalCount).toBe(11);
    expect(stderr()).toMatch(/11 assigned, 0 could not be assigned/);
  });

  it("flags skip their prompts; declining the summary creates nothing (exit 2)", async () => {
    const prompter = scriptedPrompter([
      { match: /Campaign name/ },
      { match: /Commission rate/, answer: "0.1" },
      { match: /External reference/ },
      { match: /Create this campaign\?/, answer: false },
    ]);
    const { ctx } = s.context({ tty: true, prompter });
    const r = await runFn(ctx, () =>
      campaignsCreateRun(
        { offer: SEED.offers.oats, from: day(0), through: day(10), codeLimit: "50", unitPrice: "2.50" },
        ctx,
      ),
    );
    await ctx.close();
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/Not created/);
    expect(prompter.asked.map((p) => p.message).join("|")).not.toMatch(
      /Brand|Offer|First day|Code limit|price/,
    );
    // The name defaults to the offer title.
    expect(prompter.asked[0]!.default).toBe("Crunchy Oats 12oz: $1.50 off");
    expect((await s.http("GET", "/campaigns")).body.totalCount).toBe(0);
  });

  it("an optional retailer is offered; declining activation and links leaves a draft and says how to assign later", async () => {
    const prompter = scriptedPrompter([
      { match: /Campaign name/, answer: "Zero" },
      { match: /Restrict the campaign to one retailer\?/, answer: false },
      { match: /Create this campaign\?/, answer: true },
      { match: /Activate the campaign now\?/, answer: false },
      { match: /roster a share link now\?/, answer: false },
    ]);
    const { ctx, stderr } = s.context({ tty: true, prompter, globals: { json: true } });
    const r = await runFn(ctx, () =>
      campaignsCreateRun(
        {
          offer: SEED.offers.sodaZero,
          from: day(0),
          through: day(10),
          codeLimit: "20",
          rate: "0.1",
          unitPrice: "1",
          externalReference: "zero-1",
        },
        ctx,
      ),
    );
    await ctx.close();
    expect(r.exitCode).toBe(0);
    expect(stderr()).toContain("partner-cli links assign zero-1 --roster");
    const c = (await s.http("GET", "/campaigns?externalReference=zero-1")).body.items[0];
    expect(c.status).toBe("draft");
    expect(c.retailer).toBeNull();
    expect(prompter.remaining()).toBe(0);
  });

  it("--retailer-name alone on a terminal: the retailer is picked from the offer's list, not dropped", async () => {
    const prompter = scriptedPrompter([
      { match: /^Retailer$/, answer: "freshmart.example" },
      { match: /Create this campaign\?/, answer: true },
      { match: /Activate the campaign now\?/, answer: false },
      { match: /roster a share link now\?/, answer: false },
    ]);
    const { ctx } = s.context({ tty: true, prompter });
    const r = await runFn(ctx, () =>
      campaignsCreateRun(
        {
          name: "Z",
          offer: SEED.offers.sodaZero,
          from: day(0),
          through: day(5),
          codeLimit: "5",
          rate: "0.1",
          unitPrice: "1",
          retailerName: "Fresh Mart",
          externalReference: "zero-2",
        },
        ctx,
      ),
    );
    await ctx.close();
    expect(r.exitCode).toBe(0);
    const c = (await s.http("GET", "/campaigns?externalReference=zero-2")).body.items[0];
    expect(c.retailer).toEqual({ emailDomain: "freshmart.example", name: "Fresh Mart" });
  });

  it("with every flag given on a terminal there are no prompts at all", async () => {
    const prompter = scriptedPrompter([]);
    const { ctx } = s.context({ tty: true, prompter });
    const r = await runFn(ctx, () =>
      campaignsCreateRun(
        {
          name: "N",
          offer: SEED.offers.oats,
          from: day(0),
          through: day(3),
          codeLimit: "5",
          rate: "0",
          unitPrice: "0",
        },
        ctx,
      ),
    );
    await ctx.close();
    expect(r.exitCode).toBe(0);
    expect(prompter.asked).toHaveLength(0);
  });
});
