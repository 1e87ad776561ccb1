// --brand ID_OR_NAME on offers list and campaigns list, and two brands with one name (in-process runs
// against a sandbox on port 0 whose second brand is renamed to the first one's name).
import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { runIn } from "../helpers/run.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
let brands: Map<string, string>; // name → id
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir() });
  const offers = (await s.http("GET", "/offers?pageSize=200")).body.items as {
    brand: { id: string; name: string };
  }[];
  brands = new Map(offers.map((o) => [o.brand.name, o.brand.id]));
});

const run = (args: string[]) => runIn(args, { env });

describe("--brand on offers list and campaigns list", () => {
  it("a brand name selects the same offers and campaigns as its id", async () => {
    const soda = brands.get("Sparkle Soda")!;
    const byId = await run(["offers", "list", "--brand", soda, "--all", "--json"]);
    const byName = await run(["offers", "list", "--brand", "sparkle soda", "--all", "--json"]);
    expect(byName.exitCode).toBe(0);
    expect(byName.stdout).toBe(byId.stdout);
    const items = JSON.parse(byName.stdout) as { brand: { id: string } }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((o) => o.brand.id === soda)).toBe(true);

    await makeCampaign(s.sb, {
      externalReference: "soda-1",
      baseGs1: SEED.offers.sodaRetail,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
    });
    await makeCampaign(s.sb, { externalReference: "oats-1" });
    const camps = await run(["campaigns", "list", "--brand", "Sparkle Soda", "--all", "--json"]);
    expect(camps.exitCode).toBe(0);
    expect(JSON.parse(camps.stdout).map((c: { externalReference: string }) => c.externalReference)).toEqual([
      "soda-1",
    ]);
    const campsById = await run(["campaigns", "list", "--brand", soda, "--all", "--json"]);
    expect(campsById.stdout).toBe(camps.stdout);
  });

  it("an empty --brand is a usage error before any read", async () => {
    const r = await run(["reports", "summary", "--brand", " "]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--brand is empty/);
  });

  it("two brands with the name: exit 2 listing both ids; each id still works", async () => {
    // Rename the snacks brand (on its offers) to the oats brand's name.
    const oats = brands.get("Crunchy Oats Co.")!;
    const snacks = brands.get("Trailside Snacks")!;
    const store = s.sb.sandbox.store;
    store.write(() => {
      for (const state of store.orgs.values())
        for (const o of state.offers.values())
          if (o.brand.id === snacks)
            state.offers.edit(o.baseGs1, (v) => {
              v.brand = { id: snacks, name: "Crunchy Oats Co." };
            });
    });
    const out = tempDir();
    const r = await run(["reports", "creators", "--brand", "Crunchy Oats Co.", "--out", `${out}/x.csv`]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/--brand "Crunchy Oats Co\." is ambiguous: 2 brands have this name/);
    expect(r.stderr).toContain(oats);
    expect(r.stderr).toContain(snacks);
    expect(r.stderr).toMatch(/Give the brand id instead/);
    expect(existsSync(`${out}/x.csv`)).toBe(false);
    const byId = await run(["offers", "list", "--brand", snacks, "--all", "--json"]);
    expect(byId.exitCode).toBe(0);
    expect(JSON.parse(byId.stdout).length).toBeGreaterThan(0);
  });
});
