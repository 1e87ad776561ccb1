import { describe, expect, it } from "vitest";
import { offersGetRun } from "../../src/commands/offers/get.js";
import { offersListRun } from "../../src/commands/offers/list.js";
import { retailerRule } from "../../src/commands/offers/format.js";
import { ApiError, UsageError } from "../../src/errors.js";
import { strictOffers } from "../../src/spec/offers.js";
import type { testContext } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();

async function list(opts: Parameters<typeof offersListRun>[0], o: Parameters<typeof testContext>[1] = {}) {
  const t = s.context(o);
  try {
    await offersListRun(opts, t.ctx);
  } finally {
    await t.ctx.close();
  }
  return t;
}

function tsv(text: string): string[][] {
  return text
    .trimEnd()
    .split("\n")
    .map((l) => l.split("\t"));
}

describe("offers list", () => {
  it("piped: TSV with a header, every column, identifiers as text", async () => {
    const t = await list({});
    const rows = tsv(t.stdout());
    expect(rows[0]).toEqual([
      "baseGs1",
      "brand",
      "title",
      "state",
      "distributable",
      "savings",
      "redemptionDates",
      "codesAvailable",
      "retailerRule",
    ]);
    expect(rows).toHaveLength(9);
    const soda = rows.find((r) => r[0] === SEED.offers.sodaRetail)!;
    expect(soda[1]).toBe("Sparkle Soda");
    expect(soda[3]).toBe("available");
    expect(soda[4]).toBe("yes");
    expect(soda[5]).toBe("$2.00 off");
    expect(soda[6]).toMatch(/^\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}$/);
    expect(soda[7]).toBe("2000");
    expect(soda[8]).toBe("required: freshmart.example, cornerstore.example");
    // Leading zeros kept; nulls are empty cells in TSV.
    expect(rows.map((r) => r[0])).toContain(SEED.offers.oats);
    const noDates = rows.find((r) => r[0] === SEED.offers.notDistributable)!;
    expect(noDates[6]).toBe("");
    expect(noDates[7]).toBe("");
    expect(t.stderr()).toBe("");
  });

  it("--json: the API's objects, baseGs1 and barcodes as strings", async () => {
    const t = await list({}, { globals: { json: true } });
    const items = JSON.parse(t.stdout());
    expect(items).toHaveLength(8);
    for (const o of items) strictOffers.Offer.parse(o);
    const oats = items.find((o: { baseGs1: string }) => o.baseGs1 === SEED.offers.oatsUnknownSupply);
    expect(oats.productBarcodes).toEqual(["000000012345"]);
    expect(t.stdout()).toContain(`"baseGs1":"${SEED.offers.oats}"`);
  });

  it("on a terminal: a table with the leading zeros", async () => {
    // --wide: every column at full width (at 80 columns the retailer rule is dropped to fit).
    const t = await list({ state: "available" }, { tty: true, globals: { wide: true } });
    expect(t.stdout()).toContain(SEED.offers.oats);
    expect(t.stdout()).toContain("Base GS1");
    expect(t.stdout()).toContain("optional: freshmart.example");
    // Borderless, like gh's: the header row, then one row per offer, columns two spaces apart.
    expect(t.stdout()).toMatch(/^Base GS1 {2,}Brand {2,}Title/);
    expect(t.stdout()).not.toMatch(/[┌│─+]/);
  });

  it("--state filters on the API side", async () => {
    const t = await list({ state: "expired" }, { globals: { json: true } });
    const items = JSON.parse(t.stdout());
    expect(items.map((o: { baseGs1: string }) => o.baseGs1)).toEqual([SEED.offers.expired]);
  });

  it("an unknown --state is passed through with a warning (this sandbox answers 400 for it)", async () => {
    const r = await s.run(["offers", "list", "--state", "paused_by_brand"]);
    expect(r.stderr).toMatch(/Warning: "paused_by_brand" is not a known offer state/);
    // The request was sent: the API's own answer comes back (400 validation_failed → exit 2).
    expect(r.stderr).toMatch(/400 validation_failed; GET \/offers/);
    expect(r.stderr).toMatch(/ {2}--state: must be one of/); // the flag typed, not the API field
    expect(r.exitCode).toBe(2);
  });

  it("a known --state gives no warning", async () => {
    const t = await list({ state: "available" }, { globals: { json: true } });
    expect(t.stderr()).toBe("");
  });

  it("--brand filters by brand.id", async () => {
    const all = JSON.parse((await list({}, { globals: { json: true } })).stdout());
    const soda = all.find((o: { brand: { name: string } }) => o.brand.name === "Sparkle Soda").brand.id;
    const t = await list({ brand: soda }, { globals: { json: true } });
    const items = JSON.parse(t.stdout());
    expect(items.map((o: { baseGs1: string }) => o.baseGs1).sort()).toEqual([
      SEED.offers.sodaRetail,
      SEED.offers.sodaZero,
    ]);
  });

  it("--all walks every page", async () => {
    const t = await list({ all: true, pageSize: 3 }, { globals: { json: true } });
    expect(JSON.parse(t.stdout())).toHaveLength(8);
    expect(t.stderr()).toBe("");
  });

  it("one page: says how to get more", async () => {
    const t = await list({ pageSize: 3, page: 1 }, { globals: { json: true } });
    expect(JSON.parse(t.stdout())).toHaveLength(3);
    expect(t.stderr()).toMatch(
      /^Showing 4-6 of 8 offers \(page 1\); use --page 2, --limit N or --all for more\.$/m,
    );
  });

  it("--distributable filters canDistribute within the page, or across pages with --all", async () => {
    const page = await list({ distributable: true, pageSize: 3 }, { globals: { json: true } });
    const first = JSON.parse(page.stdout());
    // Page 0 (sorted by baseGs1) holds two available offers and one not_distributable one.
    expect(first.map((o: { baseGs1: string }) => o.baseGs1)).toEqual([
      SEED.offers.oats,
      SEED.offers.oatsUnknownSupply,
    ]);
    const all = await list({ distributable: true, all: true, pageSize: 3 }, { globals: { json: true } });
    const items = JSON.parse(all.stdout());
    expect(items).toHaveLength(4);
    expect(items.every((o: { canDistribute: boolean }) => o.canDistribute)).toBe(true);
  });

  it("an empty result says so on stderr and prints only the header when piped", async () => {
    // A real brand (by its name) with no offer in that state: an empty list, exit 0.
    const t = await list({ brand: "Crunchy Oats Co.", state: "expired" });
    expect(t.stdout().trim()).toBe(tsv(t.stdout())[0]!.join("\t"));
    expect(t.stderr()).toMatch(/No offers match/);
  });
});

describe("offers get", () => {
  it("every field, barcodes and retailers as text", async () => {
    const t = s.context();
    await offersGetRun({ baseGs1: SEED.offers.sodaRetail }, t.ctx);
    await t.ctx.close();
    const fields = Object.fromEntries(tsv(t.stdout()).map(([k, v]) => [k, v]));
    expect(fields.baseGs1).toBe(SEED.offers.sodaRetail);
    expect(fields.productBarcodes).toBe("009876500001");
    expect(fields.allowedRetailers).toBe("freshmart.example, cornerstore.example");
    expect(fields.retailerChoiceRequired).toBe("yes");
    expect(fields.savings).toBe("$2.00 off (200 cents)");
    expect(Object.keys(fields)).toEqual([
      "baseGs1",
      "title",
      "description",
      "brand",
      "brandId",
      "state",
      "canDistribute",
      "savings",
      "productBarcodes",
      "campaignDates",
      "redemptionDates",
      "codesAvailable",
      "retailerChoiceRequired",
      "allowedRetailers",
      "retailerRule",
      "lastUpdatedAt",
    ]);
  });

  it("--json keeps leading zeros in barcodes", async () => {
    const t = s.context({ globals: { json: true } });
    await offersGetRun({ baseGs1: SEED.offers.oatsUnknownSupply }, t.ctx);
    await t.ctx.close();
    const o = JSON.parse(t.stdout());
    strictOffers.Offer.parse(o);
    expect(o.productBarcodes).toEqual(["000000012345"]);
    expect(t.stdout()).toContain('"000000012345"');
  });

  it("a 404 is an ApiError with a next step; another organization's offer is not visible", async () => {
    const t = s.context();
    const err = await offersGetRun({ baseGs1: SEED.offers.otherOrg }, t.ctx).catch((e) => e);
    await t.ctx.close();
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(404);
    expect(err.hint).toMatch(/offers list/);
  });

  it("an empty BASE_GS1 is a usage error before any request", async () => {
    const t = s.context();
    await expect(offersGetRun({ baseGs1: "  " }, t.ctx)).rejects.toBeInstanceOf(UsageError);
    await t.ctx.close();
  });
});

describe("through run(): flags and exit codes", () => {
  it("get of an unknown offer exits 5 with the API's message and a hint", async () => {
    const r = await s.run(["offers", "get", "0000000000000"]);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/Offer not found\. \(404 not_found; GET \/offers\/0000000000000\)/);
    expect(r.stderr).toMatch(/offers list/);
  });

  it("the singular alias works", async () => {
    const r = await s.run(["offer", "get", SEED.offers.oats, "--json"]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).baseGs1).toBe(SEED.offers.oats);
  });

  it.each([
    [["offers", "list", "--page", "-1"]],
    [["offers", "list", "--page-size", "500"]],
    [["offers", "list", "--page-size", "abc"]],
    [["offers", "list", "--all", "--page", "2"]],
    [["offers", "get"]],
  ])("%j is a usage error (exit 2)", async (args) => {
    const r = await s.run(args);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toBe("");
  });
});

describe("retailer rule", () => {
  it("required, optional, none", () => {
    expect(retailerRule({ retailerChoiceRequired: true, allowedRetailers: ["a.example"] })).toBe(
      "required: a.example",
    );
    expect(
      retailerRule({ retailerChoiceRequired: false, allowedRetailers: ["a.example", "b.example"] }),
    ).toBe("optional: a.example, b.example");
    expect(retailerRule({ retailerChoiceRequired: false, allowedRetailers: [] })).toBe("none");
  });
});
