// The sandbox's internals as the rest of the code relies on them: THE route table (every route in one
// file, every handler routed), the indexes the state owns (built on first use, never persisted), and
// the engines a running sandbox owns.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deliveryEngine } from "../../src/sandbox/delivery.js";
import { campaignHandlers } from "../../src/sandbox/handlers/campaigns.js";
import { controlHandlers } from "../../src/sandbox/handlers/control.js";
import { creatorHandlers } from "../../src/sandbox/handlers/creators.js";
import { eventHandlers } from "../../src/sandbox/handlers/events.js";
import { linkHandlers } from "../../src/sandbox/handlers/links.js";
import { meHandlers } from "../../src/sandbox/handlers/me.js";
import { offerHandlers } from "../../src/sandbox/handlers/offers.js";
import { redemptionHandlers } from "../../src/sandbox/handlers/redemptions.js";
import { reportHandlers } from "../../src/sandbox/handlers/reports.js";
import { trafficHandlers } from "../../src/sandbox/handlers/traffic.js";
import { webhookHandlers } from "../../src/sandbox/handlers/webhooks.js";
import { ROUTES } from "../../src/sandbox/routes.js";
import { dirFingerprint, readStore } from "./core-util.js";
import { tempDir, useSandbox, withSandbox } from "../helpers/harness.js";
import { dayIn, makeCampaign, NY, SEED } from "../helpers/fixtures.js";

const s = useSandbox({ seed: "demo" });

describe("the route table", () => {
  it("lists each METHOD path once, and routes every handler of every area", () => {
    const keys = ROUTES.map((r) => `${r.kind} ${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const handlers = [
      campaignHandlers,
      controlHandlers,
      creatorHandlers,
      eventHandlers,
      linkHandlers,
      meHandlers,
      offerHandlers,
      redemptionHandlers,
      reportHandlers,
      trafficHandlers,
      webhookHandlers,
    ].flatMap((h) => Object.values(h));
    const routed = new Set(ROUTES.map((r) => r.handler));
    expect(handlers.filter((h) => !routed.has(h))).toEqual([]);
    expect(ROUTES.length).toBe(handlers.length);
  });

  it("serves every route it lists at its method and path (none falls through to the unknown-path 404)", async () => {
    for (const r of ROUTES) {
      const path = r.path.replace(/:(\w+)/g, "x");
      // A write gets a body that is not JSON: refused by the pipeline before its handler runs.
      const o = r.method === "GET" ? {} : { rawBody: "{" };
      const res = await s.http(r.method, path, { control: r.kind === "control", ...o });
      expect(JSON.stringify(res.body ?? ""), `${r.method} ${r.path}`).not.toContain("No route for");
      if (r.method !== "GET") expect(res.status, `${r.method} ${r.path}`).toBe(400);
    }
    const unknown = await s.http("GET", "/no-such-thing");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain("No route for GET");
  });
});

describe("the campaign index by externalReference", () => {
  async function campaign(f: typeof s, externalReference: string) {
    const made = await makeCampaign(f, {
      name: `Indexed ${externalReference}`,
      baseGs1: SEED.offers.oatsUnknownSupply,
      dates: { from: -1, through: 10 },
      commission: { rate: 0.1, estimatedUnitSalePrice: 2.5 },
      externalReference,
    });
    return made.id;
  }

  it("finds a campaign created after the index was built (list filter and simulate)", async () => {
    const first = await campaign(s, "IDX-1");
    const listed = await s.http("GET", "/campaigns?externalReference=IDX-1");
    expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([first]);
    const second = await campaign(s, "IDX-2");
    const again = await s.http("GET", "/campaigns?externalReference=%20IDX-2%20");
    expect(again.body.items.map((c: { id: string }) => c.id)).toEqual([second]);
    expect((await s.http("GET", "/campaigns?externalReference=IDX-3")).body.items).toEqual([]);
    const sim = await s.http("POST", "/simulate", { control: true, body: { campaign: "IDX-2", views: 0 } });
    expect(sim.status).toBe(200);
    expect(sim.body.campaigns.map((c: { id: string }) => c.id)).toEqual([second]);
    // A duplicate externalReference is still refused (the create handler's own check).
    const dup = await s.http("POST", "/campaigns", {
      body: {
        name: "dup",
        baseGs1: SEED.offers.oatsUnknownSupply,
        dates: { from: dayIn(s.sb, NY, -1), through: dayIn(s.sb, NY, 10) },
        codeLimit: 100,
        commission: { rate: 0.1, estimatedUnitSalePrice: 2.5 },
        externalReference: "IDX-1",
      },
    });
    expect(dup.status).toBe(409);
  });

  it("is an index of the campaigns table; reads leave the data dir as it was", async () => {
    const dir = join(tempDir(), "data");
    const id = await withSandbox({ dataDir: dir, seed: "demo" }, async (f) => {
      const made = await campaign(f, "IDX-DISK");
      expect((await f.http("GET", "/campaigns?externalReference=IDX-DISK")).body.items).toHaveLength(1);
      expect((await f.http("GET", "/events")).status).toBe(200);
      return made;
    });
    const plan = await readStore(dir, (st) =>
      st.sql.db
        .prepare(
          "EXPLAIN QUERY PLAN SELECT v FROM campaigns WHERE org = ? AND scope = '' AND external_reference = ?",
        )
        .all("o", "IDX-DISK")
        .map((r) => (r as { detail: string }).detail)
        .join(" "),
    );
    expect(plan).toMatch(/USING INDEX campaigns_external_reference/);
    const before = dirFingerprint(dir);
    await withSandbox({ dataDir: dir }, async (f) => {
      const listed = await f.http("GET", "/campaigns?externalReference=IDX-DISK");
      expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([id]);
    });
    // Reads left the data dir as it was.
    expect(dirFingerprint(dir)).toBe(before);
  });
});

describe("the engines", () => {
  it("are fields of the sandbox while it runs, and gone once it is closed", async () => {
    expect(deliveryEngine(s.sb.sandbox)).toBeDefined();
    expect(s.sb.sandbox.engines.jobs).toBeDefined();
    const sandbox = await withSandbox({ seed: "empty" }, async (f) => {
      expect(f.sb.sandbox.engines.delivery).toBe(deliveryEngine(f.sb.sandbox));
      expect(f.sb.sandbox.engines.jobs).toBeDefined();
      return f.sb.sandbox;
    });
    expect(sandbox.engines.delivery).toBeUndefined();
    expect(sandbox.engines.jobs).toBeUndefined();
  });
});
