import { beforeEach, describe, expect, it } from "vitest";
import { campaignsCreateRun } from "../../src/commands/campaigns/create.js";
import { countCampaigns, day } from "./helpers.js";
import { runFn, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
  await s.http("POST", "/faults", { control: true, body: { next: [], pathPrefix: null, method: null } });
});

const flags = (over: Record<string, unknown> = {}) => ({
  name: "Spring oats",
  offer: SEED.offers.oats,
  from: day(1),
  through: day(60),
  codeLimit: "5000",
  rate: "0.1",
  unitPrice: "4.99",
  ...over,
});

async function total(): Promise<number> {
  return (await s.http("GET", "/campaigns")).body.totalCount;
}

describe("campaigns create by flags", () => {
  it("creates a draft with the given values and prints it as a record", async () => {
    const { ctx, stdout, stderr } = s.context();
    const r = await runFn(ctx, () => campaignsCreateRun(flags({ externalReference: "spring-oats" }), ctx));
    await ctx.close();
    expect([r.exitCode, r.error]).toEqual([0, ""]);
    expect(stdout()).toMatch(/^id\t[0-9a-f-]{36}$/m);
    expect(stdout()).toMatch(/^externalReference\tspring-oats$/m);
    expect(stdout()).toMatch(/^status\tdraft$/m);
    expect(stdout()).toMatch(/^estimatedPerRedemption\t0\.499$/m);
    expect(stderr()).toMatch(/Created campaign/);
    const list = await s.http("GET", "/campaigns?externalReference=spring-oats");
    expect(list.body.items[0]).toMatchObject({
      name: "Spring oats",
      codes: { limit: 5000 },
      commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
      dates: { from: day(1), through: day(60) },
      retailer: null,
    });
  });

  it("always sends an externalReference: a generated one is printed", async () => {
    const { ctx, stdout, stderr } = s.context({ globals: { json: true } });
    await campaignsCreateRun(flags(), ctx);
    await ctx.close();
    const c = JSON.parse(stdout());
    expect(c.externalReference).toMatch(/^pcli-\d{8}-[a-z0-9]{8}$/);
    expect(stderr()).toContain(`External reference: ${c.externalReference}`);
    expect(stderr()).toContain(`partner-cli campaigns get ${c.externalReference}`);
  });

  it("--activate activates after creating; a retailer is sent with both flags", async () => {
    const { ctx, stdout } = s.context({ globals: { json: true } });
    await campaignsCreateRun(
      flags({
        offer: SEED.offers.sodaRetail,
        codeLimit: "500",
        retailerDomain: "freshmart.example",
        retailerName: "FreshMart",
        activate: true,
      }),
      ctx,
    );
    await ctx.close();
    const c = JSON.parse(stdout());
    expect(c.status).toBe("active");
    expect(c.retailer).toEqual({ emailDomain: "freshmart.example", name: "FreshMart" });
  });

  it("without a terminal, missing values are a usage error naming every missing flag; nothing is sent", async () => {
    const { ctx } = s.context();
    const r = await runFn(ctx, () =>
      campaignsCreateRun({ name: "x", retailerDomain: "freshmart.example" }, ctx),
    );
    await ctx.close();
    expect(r.exitCode).toBe(2);
    for (const f of [
      "--offer",
      "--from",
      "--through",
      "--code-limit",
      "--rate",
      "--unit-price",
      "--retailer-name",
    ])
      expect(r.error).toContain(f);
    expect(r.error).not.toMatch(/--name\b/);
    expect(await total()).toBe(0);
  });

  it("--no-input on a terminal never prompts: the same usage error", async () => {
    const prompter = scriptedPrompter([]);
    const { ctx } = s.context({ tty: true, prompter, globals: { input: false } });
    const r = await runFn(ctx, () => campaignsCreateRun({}, ctx));
    await ctx.close();
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(
      /Missing required flags: --name, --offer, --from, --through, --code-limit, --rate, --unit-price/,
    );
    expect(r.error).toContain("--no-input never prompts");
    expect(prompter.asked).toHaveLength(0);
  });

  it("reports every format problem at once with the flag names, before any write", async () => {
    const { ctx } = s.context();
    const r = await runFn(ctx, () =>
      campaignsCreateRun(
        flags({
          name: " ",
          from: "2026-02-30",
          codeLimit: "0",
          rate: "1.5",
          unitPrice: "4.999",
          externalReference: "x".repeat(121),
        }),
        ctx,
      ),
    );
    await ctx.close();
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/--name: must not be blank/);
    expect(r.error).toMatch(/--from: must be a calendar day/);
    expect(r.error).toMatch(/--code-limit: must be between 1 and 10,000,000/);
    expect(r.error).toMatch(/--rate: must be between 0 and 1/);
    expect(r.error).toMatch(/--unit-price: must have at most 2 decimal places/);
    expect(r.error).toMatch(/--external-reference: must be at most 120 characters/);
  });

  it("checks the offer's rules locally: dates, codes available, retailer required/allowed", async () => {
    const { ctx } = s.context();
    const offer = (await s.http("GET", `/offers/${SEED.offers.sodaRetail}`)).body;
    const r = await runFn(ctx, () =>
      campaignsCreateRun(
        flags({ offer: SEED.offers.sodaRetail, from: day(-400), through: day(400), codeLimit: "2001" }),
        ctx,
      ),
    );
    expect(r.exitCode).toBe(2);
    expect(r.error).toContain(
      `--from: must be inside the offer's redemption dates ${offer.redemptionDates.from}`,
    );
    expect(r.error).toContain("--through: must be inside the offer's redemption dates");
    expect(r.error).toContain("--code-limit: must be at most 2,000");
    expect(r.error).toMatch(
      /--retailer-domain: this offer requires a retailer: one of freshmart\.example, cornerstore\.example/,
    );
    const r2 = await runFn(ctx, () =>
      campaignsCreateRun(flags({ retailerDomain: "freshmart.example", retailerName: "F" }), ctx),
    );
    expect(r2.exitCode).toBe(2);
    expect(r2.error).toContain("--retailer-domain: this offer allows no retailer restriction");
    const r3 = await runFn(ctx, () =>
      campaignsCreateRun(
        flags({
          offer: SEED.offers.sodaZero,
          codeLimit: "10",
          retailerDomain: "other.example",
          retailerName: "O",
        }),
        ctx,
      ),
    );
    expect(r3.error).toContain("--retailer-domain: must be one of the offer's retailers: freshmart.example");
    await ctx.close();
    expect(await total()).toBe(0);
  });

  it("format problems and the offer's rules are reported together", async () => {
    const { ctx } = s.context();
    const r = await runFn(ctx, () =>
      campaignsCreateRun(flags({ offer: SEED.offers.sodaRetail, rate: "2", codeLimit: "2001" }), ctx),
    );
    await ctx.close();
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/--rate: must be between 0 and 1/);
    expect(r.error).toMatch(/--code-limit: must be at most 2,000/);
    expect(r.error).toMatch(/--retailer-domain: this offer requires a retailer/);
  });

  it("an offer that cannot be distributed or does not exist is a usage error", async () => {
    const { ctx } = s.context();
    const r = await runFn(ctx, () => campaignsCreateRun(flags({ offer: SEED.offers.expired }), ctx));
    expect(r.exitCode).toBe(2);
    expect(r.error).toContain(`--offer: offer ${SEED.offers.expired} cannot be distributed (state expired)`);
    const r2 = await runFn(ctx, () => campaignsCreateRun(flags({ offer: "0000000000000" }), ctx));
    expect(r2.exitCode).toBe(2);
    expect(r2.error).toMatch(/--offer: no offer 0000000000000/);
    await ctx.close();
  });

  it("a duplicate reference is exit 6 naming the existing campaign and the command to see it", async () => {
    const { ctx } = s.context();
    await campaignsCreateRun(flags({ externalReference: "dup-ref" }), ctx);
    const first = (await s.http("GET", "/campaigns?externalReference=dup-ref")).body.items[0];
    const r = await runFn(ctx, () =>
      campaignsCreateRun(flags({ externalReference: "dup-ref", name: "Other" }), ctx),
    );
    await ctx.close();
    expect(r.exitCode).toBe(6);
    expect(r.error).toContain(first.id);
    expect(r.error).toContain("partner-cli campaigns get dup-ref");
    expect(await countCampaigns(s.sb, "dup-ref")).toBe(1);
  });
});

describe("campaigns create: safe retries", () => {
  it("a 500 after the create was applied yields ONE campaign (found by its reference)", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/campaigns", method: "POST" },
    });
    const { ctx, stdout, stderr } = s.context({ globals: { json: true } });
    const r = await runFn(ctx, () => campaignsCreateRun(flags({ externalReference: "after-500" }), ctx));
    await ctx.close();
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(stdout()).externalReference).toBe("after-500");
    expect(stderr()).toMatch(/found by its reference after-500/);
    expect(await countCampaigns(s.sb, "after-500")).toBe(1);
    expect(await total()).toBe(1);
  });

  it("a connection reset after the create was applied yields ONE campaign", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["reset-after"], pathPrefix: "/campaigns", method: "POST" },
    });
    const { ctx } = s.context({ globals: { json: true } });
    const r = await runFn(ctx, () => campaignsCreateRun(flags({ externalReference: "after-reset" }), ctx));
    await ctx.close();
    expect(r.exitCode).toBe(0);
    expect(await countCampaigns(s.sb, "after-reset")).toBe(1);
    expect(await total()).toBe(1);
  });

  it("a 502 before anything was applied is simply repeated: one campaign", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["502", "reset"], pathPrefix: "/campaigns", method: "POST" },
    });
    const { ctx } = s.context();
    const r = await runFn(ctx, () => campaignsCreateRun(flags({ externalReference: "after-502" }), ctx));
    await ctx.close();
    expect(r.exitCode).toBe(0);
    expect(await total()).toBe(1);
  });
});
