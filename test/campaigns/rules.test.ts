// The campaign/offer rules, written once in src/spec/campaign-rules.ts: the pure functions, and the
// proof that the sandbox's 400 details and the CLI's flag lines carry the same words.
import { describe, expect, it } from "vitest";
import {
  asDetails,
  type CampaignNow,
  createProblems,
  type OfferTerms,
  patchConflict,
  patchProblems,
} from "../../src/spec/campaign-rules.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../helpers/fixtures.js";
import { shift } from "../sandbox/campaigns-fixtures.js";

const offer: OfferTerms = {
  baseGs1: "0000000000017",
  state: "available",
  canDistribute: true,
  redemptionDates: { from: "2026-01-01", through: "2026-06-30" },
  codesAvailable: 2000,
  retailerChoiceRequired: true,
  allowedRetailers: ["freshmart.example", "cornerstore.example"],
};

const now: CampaignNow = {
  status: "active",
  dates: { from: "2026-02-01", through: "2026-02-28" },
  retailer: { emailDomain: "freshmart.example" },
  canChangeRetailer: true,
  codes: { limit: 100, issued: 30, testCodes: 5 },
};

describe("createProblems", () => {
  it("every rule at once, keyed by the API's field names", () => {
    const ps = createProblems(
      { dates: { from: "2025-12-31", through: "2026-07-01" }, codeLimit: 2001, retailer: undefined },
      offer,
    );
    expect(asDetails(ps)).toEqual({
      "dates.from": ["must be inside the offer's redemption dates 2026-01-01 to 2026-06-30"],
      "dates.through": ["must be inside the offer's redemption dates 2026-01-01 to 2026-06-30"],
      codeLimit: ["must be at most 2,000, the codes the offer has available"],
      retailer: ["this offer requires a retailer: one of freshmart.example, cornerstore.example"],
    });
  });

  it("a fitting campaign has none; a retailer is compared case-insensitively", () => {
    expect(
      createProblems(
        {
          dates: { from: "2026-01-01", through: "2026-06-30" },
          codeLimit: 2000,
          retailer: { emailDomain: "FreshMart.example" },
        },
        offer,
      ),
    ).toEqual([]);
  });

  it("a retailer the offer does not list, or any retailer where it lists none", () => {
    expect(createProblems({ retailer: { emailDomain: "other.example" } }, offer)).toEqual([
      {
        field: "retailer.emailDomain",
        message: "must be one of the offer's retailers: freshmart.example, cornerstore.example",
      },
    ]);
    const open = { ...offer, retailerChoiceRequired: false, allowedRetailers: [] };
    expect(createProblems({ retailer: { emailDomain: "freshmart.example" } }, open)).toEqual([
      { field: "retailer.emailDomain", message: "this offer allows no retailer restriction" },
    ]);
    expect(createProblems({ retailer: null }, open)).toEqual([]);
  });

  it("an offer that cannot be distributed is the only problem; unknown supply bounds nothing", () => {
    const expired = { ...offer, state: "expired" as const, canDistribute: false };
    expect(createProblems({ dates: { from: "2020-01-01" }, codeLimit: 5_000 }, expired)).toEqual([
      { field: "baseGs1", message: "offer 0000000000017 cannot be distributed (state expired)" },
    ]);
    const unknown = { ...offer, codesAvailable: null, retailerChoiceRequired: false };
    expect(createProblems({ codeLimit: 10_000_000 }, unknown)).toEqual([]);
  });
});

describe("patchProblems and patchConflict", () => {
  it("dates merge with the current ones and stay inside the offer's window", () => {
    expect(asDetails(patchProblems({ dates: { through: "2026-01-15" } }, now, offer))).toEqual({
      "dates.through": ["must be on or after the campaign's first day 2026-02-01"],
    });
    expect(asDetails(patchProblems({ dates: { from: "2026-03-01" } }, now, offer))).toEqual({
      "dates.from": ["must be on or before the campaign's last day 2026-02-28"],
    });
    expect(
      asDetails(patchProblems({ dates: { from: "2025-12-01", through: "2026-07-02" } }, now, offer)),
    ).toEqual({
      "dates.from": ["must be inside the offer's redemption dates 2026-01-01 to 2026-06-30"],
      "dates.through": ["must be inside the offer's redemption dates 2026-01-01 to 2026-06-30"],
    });
  });

  it("code limit: not below the codes handed out, raised within the supply", () => {
    expect(patchProblems({ codeLimit: 34 }, now, offer)).toEqual([
      {
        field: "codeLimit",
        message: "must be at least 35, the codes already handed out (issued and test codes)",
      },
    ]);
    expect(patchProblems({ codeLimit: 35 }, now, offer)).toEqual([]);
    expect(patchProblems({ codeLimit: 2036 }, now, offer)).toEqual([
      { field: "codeLimit", message: "must be at most 2,035: the offer has 2,000 codes available" },
    ]);
    expect(patchProblems({ codeLimit: 2035 }, now, offer)).toEqual([]);
  });

  it("a raise the state refuses is a conflict (409), not a problem of the value", () => {
    const ended = { ...now, status: "ended" };
    expect(patchProblems({ codeLimit: 9_999 }, ended, offer)).toEqual([]);
    expect(patchConflict({ codeLimit: 9_999 }, ended, offer)).toMatch(/has ended/);
    expect(patchConflict({ codeLimit: 101 }, now, { ...offer, codesAvailable: 0 })).toMatch(/no codes left/);
    expect(patchConflict({ codeLimit: 101 }, now, null)).toMatch(/state gone/);
    expect(patchConflict({ codeLimit: 50 }, ended, offer)).toBeUndefined();
  });

  it("retailer: required on clear, allowed on change; fixed once codes are prepared (409)", () => {
    expect(patchProblems({ retailer: null }, now, offer)).toEqual([
      {
        field: "retailer",
        message: "this offer requires a retailer: one of freshmart.example, cornerstore.example",
      },
    ]);
    expect(patchProblems({ retailer: { emailDomain: "other.example" } }, now, offer)).toHaveLength(1);
    expect(patchProblems({ retailer: { emailDomain: "FRESHMART.example" } }, now, offer)).toEqual([]);
    const fixed = { ...now, canChangeRetailer: false };
    expect(patchProblems({ retailer: { emailDomain: "cornerstore.example" } }, fixed, offer)).toEqual([]);
    expect(patchConflict({ retailer: { emailDomain: "cornerstore.example" } }, fixed, offer)).toMatch(
      /fixed/,
    );
    expect(patchConflict({ retailer: { emailDomain: "freshmart.example" } }, fixed, offer)).toBeUndefined();
  });

  it("an offer that is gone or not known: gone refuses a new retailer, unknown skips the offer's rules", () => {
    expect(patchProblems({ retailer: { emailDomain: "cornerstore.example" } }, now, null)).toEqual([
      { field: "retailer.emailDomain", message: "the campaign's offer no longer exists" },
    ]);
    expect(
      patchProblems({ retailer: { emailDomain: "x.example" }, codeLimit: 99_999 }, now, undefined),
    ).toEqual([]);
  });
});

describe("one wording: the sandbox's details are the CLI's flag lines", () => {
  const s = useSandbox({ seed: "demo", resetEach: true });

  it("create: the same rule, the same words, under the field and under the flag", async () => {
    const o = (await s.http("GET", `/offers/${SEED.offers.sodaRetail}`)).body;
    const from = shift(o.redemptionDates.from, -1);
    const through = shift(o.redemptionDates.through, 1);
    const api = await s.http("POST", "/campaigns", {
      body: {
        name: "Rules",
        baseGs1: SEED.offers.sodaRetail,
        dates: { from, through },
        codeLimit: o.codesAvailable + 1,
        commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
      },
    });
    expect(api.status).toBe(400);
    const details = api.body.error.details as Record<string, string[]>;
    expect(Object.keys(details).sort()).toEqual(["codeLimit", "dates.from", "dates.through", "retailer"]);
    const cli = await s.run([
      "campaigns",
      "create",
      "--no-input",
      "--name",
      "Rules",
      "--offer",
      SEED.offers.sodaRetail,
      "--from",
      from,
      "--through",
      through,
      "--code-limit",
      String(o.codesAvailable + 1),
      "--rate",
      "10%",
      "--unit-price",
      "$4.99",
    ]);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain(`--from: ${details["dates.from"]![0]}`);
    expect(cli.stderr).toContain(`--through: ${details["dates.through"]![0]}`);
    expect(cli.stderr).toContain(`--code-limit: ${details.codeLimit![0]}`);
    expect(cli.stderr).toContain(`--retailer-domain: ${details.retailer![0]}`);
    expect((await s.http("GET", "/campaigns")).body.totalCount).toBe(0);
  });

  it("update: every invalid flag at once by flag name, the same words as the service's details; nothing changes", async () => {
    const o = (await s.http("GET", `/offers/${SEED.offers.sodaZero}`)).body;
    const made = await s.http("POST", "/campaigns", {
      body: {
        name: "Zero",
        baseGs1: SEED.offers.sodaZero,
        externalReference: "zero-rules",
        dates: { from: o.redemptionDates.from, through: shift(o.redemptionDates.from, 10) },
        codeLimit: 10,
        commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
        retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
      },
    });
    expect(made.status).toBe(201);
    const before = (await s.http("GET", `/campaigns/${made.body.id}`)).body;
    const outside = shift(o.redemptionDates.through, 1);
    const api = await s.http("PATCH", `/campaigns/${made.body.id}`, {
      body: {
        dates: { through: outside },
        codeLimit: 10 + o.codesAvailable + 1,
        retailer: { emailDomain: "other.example", name: "O" },
      },
    });
    expect(api.status).toBe(400);
    const details = api.body.error.details as Record<string, string[]>;
    const cli = await s.run([
      "campaigns",
      "update",
      "zero-rules",
      "--through",
      outside,
      "--code-limit",
      String(10 + o.codesAvailable + 1),
      "--retailer-domain",
      "other.example",
      "--retailer-name",
      "O",
      "--rate",
      "150%",
    ]);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain("nothing was changed");
    expect(cli.stderr).toContain(`--through: ${details["dates.through"]![0]}`);
    expect(cli.stderr).toContain(`--code-limit: ${details.codeLimit![0]}`);
    expect(cli.stderr).toContain(`--retailer-domain: ${details["retailer.emailDomain"]![0]}`);
    expect(cli.stderr).toContain("--rate: must be between 0% and 100%");
    expect(cli.stderr).not.toMatch(/dates\.through|retailer\.emailDomain|codeLimit:/);
    expect((await s.http("GET", `/campaigns/${made.body.id}`)).body).toEqual(before);
  });
});
