// The wizard's steps one by one, each given only the part of the state it declares (no sandbox, no
// Context): what each asks, the range it shows against the range it enforces, what it echoes.
import { describe, expect, it } from "vitest";
import type { Offer } from "../../src/spec/offers.js";
import {
  askCodeLimit,
  askCommission,
  askDates,
  askName,
  askRetailer,
  runWizard,
} from "../../src/commands/campaigns/wizard.js";
import { scriptedPrompter, type Step } from "../helpers/fixtures.js";

const offer: Offer = {
  baseGs1: "0000000000017",
  brand: { id: "b1", name: "Brand" },
  title: "Oats",
  description: null,
  state: "available",
  canDistribute: true,
  savings: null,
  productBarcodes: [],
  campaignDates: null,
  redemptionDates: { from: "2026-01-10", through: "2026-03-31" },
  codesAvailable: null,
  retailerChoiceRequired: false,
  allowedRetailers: [],
  lastUpdatedAt: "2026-01-01T00:00:00Z",
};

/** The scripted prompter (it keeps each input's validator by message) and the lines the wizard says. */
function prompts(steps: Step[]) {
  const inner = scriptedPrompter(steps);
  const said: string[] = [];
  return { prompt: inner, inner, validators: inner.validators, said, say: (l: string) => said.push(l) };
}

describe("wizard steps", () => {
  it("dates: the range in each prompt is the range its check enforces", async () => {
    const p = prompts([
      { match: /First day/, answer: "2026-01-10" },
      { match: /Start on 2026-01-10 anyway\?/, answer: true },
      { match: /Last day/, answer: "2026-03-31" },
    ]);
    const values = {};
    const now = new Date("2026-02-01T12:00:00Z");
    await askDates({ prompt: p.prompt, say: p.say, values, chosen: offer, now });
    expect(values).toEqual({ from: "2026-01-10", through: "2026-03-31" });
    const first = p.validators.get("First day (2026-01-10 to 2026-03-31)")!;
    expect(first("2026-01-10")).toBe(true);
    expect(first("2026-03-31")).toBe(true);
    expect(first("2026-01-09")).toMatch(/between 2026-01-10 and 2026-03-31/);
    expect(first("2026-04-01")).toMatch(/between 2026-01-10 and 2026-03-31/);
    const last = p.validators.get("Last day (2026-01-10 to 2026-03-31)")!;
    expect(last("2026-01-10")).toBe(true);
    expect(last("2026-04-01")).not.toBe(true);
    expect(p.inner.asked[0]!.default).toBe("2026-02-01"); // today, inside the window
  });

  it("dates: a first day in the past is said and asked about; declined, the day is asked again", async () => {
    const p = prompts([
      { match: /First day/, answer: "2026-01-20" },
      { match: /Start on 2026-01-20 anyway\?/, answer: false },
      { match: /First day/, answer: "2026-02-01" },
      { match: /Last day/, answer: "2026-03-01" },
    ]);
    const values = {};
    const now = new Date("2026-02-01T12:00:00Z");
    await askDates({ prompt: p.prompt, say: p.say, values, chosen: offer, now });
    expect(values).toEqual({ from: "2026-02-01", through: "2026-03-01" });
    expect(p.said).toEqual([
      "Warning: 2026-01-20 is in the past (today is 2026-02-01, UTC): the campaign would start 12 days ago.",
    ]);
    expect(p.inner.remaining()).toBe(0);
  });

  it("dates: a first day in the past given by --from is warned about, not asked (the flag wins)", async () => {
    const p = prompts([{ match: /Last day/, answer: "2026-03-01" }]);
    const values = { from: "2026-01-31" };
    await askDates({
      prompt: p.prompt,
      say: p.say,
      values,
      chosen: offer,
      now: new Date("2026-02-01T00:00:00Z"),
    });
    expect(p.said).toEqual([
      "Warning: 2026-01-31 is in the past (today is 2026-02-01, UTC): the campaign would start 1 day ago.",
    ]);
    expect(p.inner.asked.map((q) => q.message)).toEqual(["Last day (2026-01-31 to 2026-03-31)"]);
  });

  it("name: the length in the prompt is the length enforced", async () => {
    const p = prompts([{ match: /Campaign name/ }]);
    const values: { name?: string } = {};
    await askName({ prompt: p.prompt, values, chosen: offer });
    expect(values.name).toBe("Oats");
    const check = p.validators.get("Campaign name (at most 120 characters)")!;
    expect(check("n".repeat(120))).toBe(true);
    expect(check("n".repeat(121))).toMatch(/at most 120/);
  });

  it("code limit: 1,000 is taken and echoed; without a known supply the range is the API's", async () => {
    const p = prompts([{ match: /Code limit/, answer: "1,000" }]);
    const values: { codeLimit?: string } = {};
    await askCodeLimit({ prompt: p.prompt, say: p.say, values, chosen: offer });
    expect(values.codeLimit).toBe("1,000");
    expect(p.said).toEqual(["  Code limit: 1,000"]);
    const check = p.validators.get("Code limit (1 to 10,000,000)")!;
    expect(check("10,000,000")).toBe(true);
    expect(check("10,000,001")).toMatch(/between 1 and 10,000,000/);
    expect(check("1,00")).toMatch(/whole number/);
  });

  it("commission: 10% and $4.99 are taken, echoed as understood, and the per-redemption estimate follows", async () => {
    const p = prompts([
      { match: /Commission rate, 0% to 100%/, answer: "10%" },
      { match: /unit sale price, \$0 to \$100,000/, answer: "$4.99" },
    ]);
    const values = {};
    await askCommission({ prompt: p.prompt, say: p.say, values });
    expect(values).toEqual({ rate: "10%", unitPrice: "$4.99" });
    expect(p.said).toEqual([
      "  Commission rate: 0.1 (10%)",
      "  Unit sale price: $4.99",
      "Estimated commission per redemption: $0.499",
    ]);
  });

  it("a step asks nothing a flag gave", async () => {
    const p = prompts([]);
    const values = { rate: "0.1", unitPrice: "4.99", codeLimit: "10", name: "N" };
    await askCommission({ prompt: p.prompt, say: p.say, values });
    await askCodeLimit({ prompt: p.prompt, say: p.say, values, chosen: offer });
    await askName({ prompt: p.prompt, values, chosen: offer });
    await askRetailer({ prompt: p.prompt, values, chosen: offer }); // the offer allows no retailer
    expect(p.inner.asked).toEqual([]);
    expect(p.said).toEqual(["Estimated commission per redemption: $0.499"]);
  });

  it("an --offer that cannot be distributed ends the wizard before any question", async () => {
    const p = prompts([]);
    const expired = { ...offer, state: "expired" as const, canDistribute: false };
    const r = await runWizard({
      prompt: p.prompt,
      say: p.say,
      values: { offer: expired.baseGs1 },
      now: new Date(),
      offers: async () => [],
      offer: async () => expired,
    });
    expect(r.offer).toBe(expired);
    expect(p.inner.asked).toEqual([]);
  });
});
