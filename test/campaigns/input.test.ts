// The campaign form accepts what people type: 10% and 0.1, $4.99 and 4.99, 1,000 and 1000; the wizard
// echoes what it understood and its prompts state the ranges it enforces; `campaigns update` names
// every invalid flag at once.
import { beforeEach, describe, expect, it } from "vitest";
import { campaignsCreateRun } from "../../src/commands/campaigns/create.js";
import { parseCodeLimit, parseRate, parseUnitPrice } from "../../src/commands/campaigns/input.js";
import { campaignsUpdateRun } from "../../src/commands/campaigns/update.js";
import { day } from "./helpers.js";
import { makeCampaign, runFn, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

describe("number input (unit)", () => {
  it("rates: a percentage or a fraction, 0 to 1 with up to 4 decimals", () => {
    const ok: [string, string, string][] = [
      ["10%", "0.1", "0.1 (10%)"],
      ["0.1", "0.1", "0.1 (10%)"],
      [" 12.5 % ", "0.125", "0.125 (12.5%)"],
      ["12.25%", "0.1225", "0.1225 (12.25%)"],
      ["0.1225", "0.1225", "0.1225 (12.25%)"],
      ["100%", "1", "1 (100%)"],
      ["0%", "0", "0 (0%)"],
      [".05", "0.05", "0.05 (5%)"],
      ["0.10", "0.1", "0.1 (10%)"],
    ];
    for (const [typed, value, shown] of ok)
      expect(parseRate(typed), typed).toEqual({ ok: true, value, shown });
    const bad: [string, RegExp][] = [
      ["10", /between 0 and 1 as a fraction \(0\.1 means 10%\), or a percentage like 10%/],
      ["150%", /between 0% and 100%/],
      ["-5%", /between 0% and 100%/],
      ["12.345%", /at most 2 decimal places as a percentage/],
      ["0.12345", /at most 4 decimal places as a fraction/],
      ["ten", /a percentage like 10% or a fraction like 0\.1/],
      ["10%%", /a percentage like 10%/],
      ["", /a percentage like 10%/],
    ];
    for (const [typed, reason] of bad) {
      const r = parseRate(typed);
      expect(r.ok, typed).toBe(false);
      if (!r.ok) expect(r.reason, typed).toMatch(reason);
    }
  });

  it("prices: dollars with or without $, thousands with commas, up to 2 decimals, $0 to $100,000", () => {
    const ok: [string, string, string][] = [
      ["$4.99", "4.99", "$4.99"],
      ["4.99", "4.99", "$4.99"],
      ["$ 5", "5", "$5"],
      ["4.5", "4.5", "$4.50"],
      ["$1,250.50", "1250.5", "$1,250.50"],
      ["100000", "100000", "$100,000"],
      ["0", "0", "$0"],
    ];
    for (const [typed, value, shown] of ok)
      expect(parseUnitPrice(typed), typed).toEqual({ ok: true, value, shown });
    const bad: [string, RegExp][] = [
      ["$4.999", /at most 2 decimal places/],
      ["$100,000.01", /between \$0 and \$100,000/],
      ["1,00", /an amount in dollars like 4\.99 or \$4\.99/],
      ["4,99", /an amount in dollars/],
      ["€4.99", /an amount in dollars/],
    ];
    for (const [typed, reason] of bad) {
      const r = parseUnitPrice(typed);
      expect(r.ok, typed).toBe(false);
      if (!r.ok) expect(r.reason, typed).toMatch(reason);
    }
  });

  it("code limits: whole numbers with or without thousands commas, within the API's and the offer's caps", () => {
    expect(parseCodeLimit("1,000")).toEqual({ ok: true, value: "1000", shown: "1,000" });
    expect(parseCodeLimit("1000")).toEqual({ ok: true, value: "1000", shown: "1,000" });
    expect(parseCodeLimit("10,000,000")).toEqual({ ok: true, value: "10000000", shown: "10,000,000" });
    expect(parseCodeLimit("50,000", 50_000).ok).toBe(true);
    const bad: [string, number | null | undefined, RegExp][] = [
      ["50,001", 50_000, /^must be between 1 and 50,000 \(the codes the offer has available\)$/],
      // The range said is the prompt's ("Code limit (1 to 50,000)"), not the API's 10,000,000.
      ["0", 50_000, /^must be between 1 and 50,000 \(the codes the offer has available\)$/],
      ["10,000,001", null, /between 1 and 10,000,000/],
      ["0", undefined, /between 1 and 10,000,000/],
      ["1,00", undefined, /a whole number like 1000 or 1,000/],
      ["1.5", undefined, /a whole number/],
      ["10k", undefined, /a whole number/],
    ];
    for (const [typed, cap, reason] of bad) {
      const r = parseCodeLimit(typed, cap);
      expect(r.ok, typed).toBe(false);
      if (!r.ok) expect(r.reason, typed).toMatch(reason);
    }
  });
});

const s = useSandbox();
beforeEach(async () => {
  await s.http("DELETE", "/faults", { control: true });
  await s.http("POST", "/reset", { control: true, body: {} });
});

describe("the wizard accepts what people type", () => {
  it("10%, $4.99 and 1,000: accepted, echoed as understood, and sent as 0.1, 4.99 and 1000", async () => {
    const prompter = scriptedPrompter([
      { match: /Campaign name/, answer: "Typed" },
      { match: /Code limit/, answer: "1,000" },
      { match: /Commission rate/, answer: "10%" },
      { match: /unit sale price/, answer: "$4.99" },
      { match: /External reference/, answer: "typed-1" },
      { match: /Create this campaign\?/, answer: true },
      { match: /Activate the campaign now\?/, answer: false },
      { match: /roster a share link now\?/, answer: false },
    ]);
    const { ctx, stderr } = s.context({ tty: true, prompter });
    const r = await runFn(ctx, () =>
      campaignsCreateRun({ offer: SEED.offers.oats, from: day(0), through: day(10) }, ctx),
    );
    await ctx.close();
    expect([r.exitCode, r.error]).toEqual([0, ""]);
    expect(prompter.remaining()).toBe(0);
    const err = stderr();
    expect(err).toContain("  Code limit: 1,000\n");
    expect(err).toContain("  Commission rate: 0.1 (10%)\n");
    expect(err).toContain("  Unit sale price: $4.99\n");
    expect(err).toContain("Estimated commission per redemption: $0.499");
    expect(err).toMatch(/Code limit\s+1,000\n/);
    expect(err).toMatch(/Commission rate\s+0\.1 \(10%\)\n/);
    expect(err).toMatch(/Unit sale price\s+\$4\.99\n/);
    const c = (await s.http("GET", "/campaigns?externalReference=typed-1")).body.items[0];
    expect(c).toMatchObject({
      codes: { limit: 1000 },
      commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
    });

    // The plain forms are accepted by the same prompts; the refusals say what to type.
    const rate = [...prompter.validators].find(([m]) => /Commission rate/.test(m))![1];
    expect(rate("0.1")).toBe(true);
    expect(rate("10")).toMatch(/or a percentage like 10%/);
    const price = [...prompter.validators].find(([m]) => /unit sale price/.test(m))![1];
    expect(price("4.99")).toBe(true);
  });

  it("each prompt states the range its check enforces: both ends pass, one step past fails", async () => {
    // SEED.offers.sodaZero has 25 codes available: the limit prompt says 1 to 25.
    const prompter = scriptedPrompter([
      { match: /Campaign name/, answer: "Ranges" },
      { match: /Code limit/, answer: "25" },
      { match: /Restrict the campaign to one retailer\?/, answer: false },
      { match: /Commission rate/, answer: "0.1" },
      { match: /unit sale price/, answer: "1" },
      { match: /External reference/, answer: "ranges-1" },
      { match: /Create this campaign\?/, answer: false },
    ]);
    const { ctx } = s.context({ tty: true, prompter });
    const r = await runFn(ctx, () =>
      campaignsCreateRun({ offer: SEED.offers.sodaZero, from: day(0), through: day(5) }, ctx),
    );
    await ctx.close();
    expect(r.exitCode).toBe(2); // declined at the summary
    expect(prompter.remaining()).toBe(0);
    const byMessage = (re: RegExp) => {
      const found = [...prompter.validators].find(([m]) => re.test(m));
      expect(found, String(re)).toBeDefined();
      return found!;
    };

    const [limitMsg, limit] = byMessage(/Code limit/);
    expect(limitMsg).toBe("Code limit (1 to 25)");
    expect(limit("1")).toBe(true);
    expect(limit("25")).toBe(true);
    expect(limit("0")).toMatch(/between 1 and 25 /);
    expect(limit("26")).toMatch(/between 1 and 25 \(the codes the offer has available\)/);

    const [rateMsg, rate] = byMessage(/Commission rate/);
    expect(rateMsg).toMatch(/0% to 100%/);
    for (const v of ["0%", "100%", "0", "1", "12.25%", "0.1225"]) expect(rate(v), v).toBe(true);
    for (const v of ["100.01%", "-1%", "1.0001", "12.255%"]) expect(rate(v), v).not.toBe(true);

    const [priceMsg, price] = byMessage(/unit sale price/);
    expect(priceMsg).toMatch(/\$0 to \$100,000/);
    for (const v of ["$0", "$100,000", "100000", "0.01"]) expect(price(v), v).toBe(true);
    for (const v of ["$100,000.01", "0.001", "-1"]) expect(price(v), v).not.toBe(true);
  });

  it("an offer without codes is refused before the limit prompt (not a 1 to 0 range)", async () => {
    await s.http("POST", `/offers/${SEED.offers.sodaZero}`, { control: true, body: { codesAvailable: 0 } });
    const prompter = scriptedPrompter([{ match: /Campaign name/, answer: "None" }]);
    const { ctx } = s.context({ tty: true, prompter });
    const r = await runFn(ctx, () =>
      campaignsCreateRun({ offer: SEED.offers.sodaZero, from: day(0), through: day(5) }, ctx),
    );
    await ctx.close();
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/has no codes available/);
  });

  it("the flags of create accept the same forms", async () => {
    const { ctx } = s.context();
    const r = await runFn(ctx, () =>
      campaignsCreateRun(
        {
          name: "Flags",
          offer: SEED.offers.oats,
          from: day(0),
          through: day(10),
          codeLimit: "2,500",
          rate: "12.5%",
          unitPrice: "$1,004.50",
          externalReference: "flags-1",
        },
        ctx,
      ),
    );
    await ctx.close();
    expect([r.exitCode, r.error]).toEqual([0, ""]);
    const c = (await s.http("GET", "/campaigns?externalReference=flags-1")).body.items[0];
    expect(c).toMatchObject({
      codes: { limit: 2500 },
      commission: { rate: 0.125, estimatedUnitSalePrice: 1004.5 },
    });
  });
});

describe("campaigns update: every invalid flag at once, by flag name", () => {
  const update = async (o: Record<string, unknown>) => {
    const { ctx } = s.context();
    const r = await runFn(ctx, () => campaignsUpdateRun({ idOrRef: "upd", ...o } as never, ctx));
    await ctx.close();
    return r;
  };

  it("format problems and what the campaign and its offer decide, together; nothing changes", async () => {
    const c = await makeCampaign(s.sb, {
      externalReference: "upd",
      dates: { from: day(1), through: day(30) },
    });
    const offer = (await s.http("GET", `/offers/${SEED.offers.oats}`)).body;
    const r = await update({
      from: day(100_000), // past the offer's redemption dates, and after the campaign's last day
      codeLimit: "99,999,999",
      rate: "150%",
      unitPrice: "$4.999",
    });
    expect(r.exitCode).toBe(2);
    const lines = r.error.split("\n");
    expect(lines[0]).toBe('Error: Cannot update campaign "Test campaign" (upd); nothing was changed:');
    expect(lines.slice(1)).toEqual([
      `  --from: must be on or before the campaign's last day ${day(30)}`,
      `  --from: must be inside the offer's redemption dates ${offer.redemptionDates.from} to ${offer.redemptionDates.through}`,
      "  --code-limit: must be between 1 and 10,000,000",
      "  --rate: must be between 0% and 100%",
      "  --unit-price: must have at most 2 decimal places (cents)",
    ]);
    expect(r.error).not.toMatch(/dates\.|codeLimit|commission\./);
    const after = (await s.http("GET", `/campaigns/${c.id}`)).body;
    expect(after.updatedAt).toBe(c.updatedAt);
  });

  it("a limit above what the offer has and below the codes handed out are named by flag", async () => {
    await makeCampaign(s.sb, { externalReference: "upd" });
    const codes = (await s.http("GET", `/offers/${SEED.offers.oats}`)).body.codesAvailable;
    let r = await update({ codeLimit: String(codes + 1) });
    expect(r.exitCode).toBe(2);
    expect(r.error).toContain(`--code-limit: must be at most ${codes.toLocaleString("en-US")}`);
    r = await update({ codeLimit: "50,000", rate: "12%" });
    expect(r.exitCode, r.error).toBe(0);
  });

  it("a 400 the service still answers names the flags, not the API's fields", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "upd" });
    const offer = (await s.http("GET", `/offers/${SEED.offers.oats}`)).body;
    // The offer cannot be read (502s until the retry deadline), so only the service can say that the
    // new last day is past the offer's redemption dates.
    await s.http("POST", "/faults", {
      control: true,
      body: { next: Array(20).fill("502"), pathPrefix: "/offers", method: "GET" },
    });
    const { ctx } = s.context({ env: { PARTNER_RETRY_DEADLINE_MS: "150" } });
    const late = new Date(Date.parse(offer.redemptionDates.through) + 86_400_000).toISOString().slice(0, 10);
    const r = await runFn(ctx, () =>
      campaignsUpdateRun({ idOrRef: c.externalReference!, through: late }, ctx),
    );
    await ctx.close();
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/\(400 validation_failed; PATCH \/campaigns\//);
    expect(r.error).toMatch(/^ {2}--through: /m);
    expect(r.error).not.toMatch(/dates\.through:/);
    expect(r.error).toContain("Nothing was changed.");
  });
});
