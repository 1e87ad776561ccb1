// The sandbox's control routes: clock/advance, reset, brand access, offer state; and persistence.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dbFile, readStore } from "./core-util.js";
import { strictCreators } from "../../src/spec/creators.js";
import { strictOffers } from "../../src/spec/offers.js";
import { http, tempDir } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { expectStampedBetween } from "../helpers/fixtures.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();

const control = (method: string, path: string, body?: unknown, key?: string) =>
  s.http(method, path, { control: true, body, ...(key ? { key } : {}) });

describe("clock", () => {
  it("GET /_sandbox/clock and POST /_sandbox/advance move sandbox time forward", async () => {
    const c0 = (await control("GET", "/clock")).body;
    expect(c0.now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const c1 = (await control("POST", "/advance", { duration: "1h30m" })).body;
    expect(c1.offsetMs - c0.offsetMs).toBe(5_400_000);
    expect(Date.parse(c1.now) - Date.parse(c0.now)).toBeGreaterThanOrEqual(5_400_000);
    const c2 = (await control("POST", "/advance", { duration: 60_000 })).body;
    expect(c2.offsetMs - c1.offsetMs).toBe(60_000);
    const c3 = (await control("POST", "/advance", { duration: "2d" })).body;
    expect(c3.offsetMs - c2.offsetMs).toBe(172_800_000);
  });
  it("new writes carry sandbox time", async () => {
    const now = Date.parse((await control("GET", "/clock")).body.now);
    const c = strict(
      strictCreators.Creator,
      await s.http("PUT", "/creators/clocked", { body: { name: "C" } }),
      201,
    );
    expect(Math.abs(Date.parse(c.createdAt) - now)).toBeLessThan(5000);
  });
  it("bad durations are 400; the clock never goes back", async () => {
    expectError(await control("POST", "/advance", { duration: "soon" }), 400, "validation_failed");
    expectError(await control("POST", "/advance", { duration: "-1h" }), 400, "validation_failed");
    expectError(await control("POST", "/advance", { duration: -5 }), 400, "validation_failed");
    expectError(await control("POST", "/advance", {}), 400, "validation_failed", ["duration"]);
    expectError(await control("POST", "/advance", { duration: "99999999d" }), 400, "validation_failed", [
      "duration",
    ]);
    expectError(await control("POST", "/advance", { duration: 1e300 }), 400, "validation_failed", [
      "duration",
    ]);
  });
  it("control routes need a valid key", async () => {
    expectError(await s.http("GET", "/clock", { control: true, key: null }), 401, "unauthenticated");
    expectError(
      await s.http("POST", "/reset", { control: true, key: s.sb.testKeys.revokedKey, body: {} }),
      401,
      "unauthenticated",
    );
  });
});

describe("brand access and offer state", () => {
  it("POST /_sandbox/brands/{id}/access toggles access", async () => {
    const offers = strict(strictOffers.OfferPage, await s.http("GET", "/offers")).items;
    const brandId = offers[0]!.brand.id;
    const off = await control("POST", `/brands/${brandId}/access`, { access: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: brandId, access: false });
    expect((await control("POST", `/brands/${brandId}/access`, { access: true })).body.access).toBe(true);
    expectError(
      await control("POST", `/brands/${brandId}/access`, { access: "no" }),
      400,
      "validation_failed",
      ["access"],
    );
    expectError(await control("POST", "/brands/nope/access", { access: false }), 404, "not_found");
    // Another organization's brand is not found.
    expectError(
      await control("POST", `/brands/${brandId}/access`, { access: false }, s.sb.testKeys.otherOrgKey),
      404,
      "not_found",
    );
  });
  it("POST /_sandbox/offers/{baseGs1} changes state and codesAvailable", async () => {
    const before = strict(strictOffers.Offer, await s.http("GET", `/offers/${SEED.offers.oats}`));
    expect(before.state).toBe("available");
    const t0 = (await control("GET", "/clock")).body.now as string;
    const res = await control("POST", `/offers/${SEED.offers.oats}`, {
      state: "temporarily_unavailable",
      codesAvailable: null,
    });
    const changed = strict(strictOffers.Offer, res);
    expect(changed).toMatchObject({
      state: "temporarily_unavailable",
      canDistribute: false,
      codesAvailable: null,
    });
    // Stamped by the sandbox's clock (whole seconds, which may tick between two reads).
    const t1 = (await control("GET", "/clock")).body.now as string;
    expectStampedBetween(changed.lastUpdatedAt, t0, t1);
    expect(strict(strictOffers.Offer, await s.http("GET", `/offers/${SEED.offers.oats}`))).toEqual(changed);
    const back = strict(
      strictOffers.Offer,
      await control("POST", `/offers/${SEED.offers.oats}`, { state: "available", codesAvailable: 7 }),
    );
    expect(back).toMatchObject({ state: "available", canDistribute: true, codesAvailable: 7 });
    expectError(
      await control("POST", `/offers/${SEED.offers.oats}`, { state: "gone" }),
      400,
      "validation_failed",
      ["state"],
    );
    expectError(
      await control("POST", `/offers/${SEED.offers.otherOrg}`, { state: "expired" }),
      404,
      "not_found",
    );
  });
});

describe("reset", () => {
  it("clears data back to the seed, keeps keys, organization and brand ids, resets the clock", async () => {
    const me = (await s.http("GET", "/me")).body;
    const brandsBefore = strict(strictOffers.OfferPage, await s.http("GET", "/offers"))
      .items.map((o) => o.brand.id)
      .sort();
    await s.http("PUT", "/creators/to-be-wiped", { body: { name: "W" } });
    await control("POST", `/offers/${SEED.offers.oats}`, { state: "expired" });
    await control("POST", "/advance", { duration: "3d" });
    const res = await control("POST", "/reset", { seed: "demo" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reset: true, seed: "demo" });
    expectError(await s.http("GET", "/creators/to-be-wiped"), 404, "not_found");
    const roster = strict(strictCreators.CreatorPage, await s.http("GET", "/creators"));
    expect(roster.totalCount).toBe(12);
    expect(strict(strictOffers.Offer, await s.http("GET", `/offers/${SEED.offers.oats}`)).state).toBe(
      "available",
    );
    expect((await control("GET", "/clock")).body.offsetMs).toBe(0);
    // Keys keep working, with the same organization.
    expect((await s.http("GET", "/me")).body).toEqual(me);
    expect((await s.http("GET", "/me", { key: s.readOnlyKey })).status).toBe(200);
    expect((await s.http("GET", "/me", { key: s.sb.testKeys.otherOrgKey })).status).toBe(200);
    expectError(await s.http("GET", "/me", { key: s.sb.testKeys.revokedKey }), 401, "unauthenticated");
    expectError(await s.http("GET", "/me", { key: s.sb.testKeys.deactivatedOrgKey }), 401, "unauthenticated");
    const brandsAfter = strict(strictOffers.OfferPage, await s.http("GET", "/offers"))
      .items.map((o) => o.brand.id)
      .sort();
    expect(brandsAfter).toEqual(brandsBefore);
  });
  it("seed empty leaves the roster empty but keeps offers", async () => {
    expect((await control("POST", "/reset", { seed: "empty" })).body.seed).toBe("empty");
    expect(strict(strictCreators.CreatorPage, await s.http("GET", "/creators")).totalCount).toBe(0);
    expect(strict(strictOffers.OfferPage, await s.http("GET", "/offers")).totalCount).toBe(8);
    expect((await control("POST", "/reset")).body.seed).toBe("demo");
    expect(strict(strictCreators.CreatorPage, await s.http("GET", "/creators")).totalCount).toBe(12);
  });
  it("an unknown seed is 400", async () => {
    expectError(await control("POST", "/reset", { seed: "lots" }), 400, "validation_failed", ["seed"]);
  });
});

describe("persistence", () => {
  it("state survives a restart with the same data dir; the snapshot is private", async () => {
    const dir = join(tempDir(), "data");
    let keys: [string, string] = ["", ""];
    await withSandbox({ dataDir: dir, seed: "empty" }, async ({ sb: a }) => {
      keys = [a.writeKey, a.readOnlyKey];
      expect((await http(a, "PUT", "/creators/persisted%2Fone", { body: { name: "Kept" } })).status).toBe(
        201,
      );
      await http(a, "POST", "/advance", { control: true, body: { duration: "5h" } });
      await http(a, "POST", `/offers/${SEED.offers.oatsUnknownSupply}`, {
        control: true,
        body: { state: "expired" },
      });
    });
    expect(existsSync(dbFile(dir))).toBe(true);
    expect(statSync(dbFile(dir)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // The seed option does not replace saved state.
    await withSandbox({ dataDir: dir, seed: "demo" }, async ({ sb: b }) => {
      expect([b.writeKey, b.readOnlyKey]).toEqual(keys);
      const c = strict(strictCreators.Creator, await http(b, "GET", "/creators/persisted%2Fone"));
      expect(c.externalId).toBe("persisted/one");
      expect(strict(strictCreators.CreatorPage, await http(b, "GET", "/creators")).totalCount).toBe(1);
      expect((await http(b, "GET", "/clock", { control: true })).body.offsetMs).toBe(5 * 3_600_000);
      expect(
        strict(strictOffers.Offer, await http(b, "GET", `/offers/${SEED.offers.oatsUnknownSupply}`)).state,
      ).toBe("expired");
    });
  });
  it("a write is in the database once it is answered, without a close", async () => {
    const dir = join(tempDir(), "data");
    await withSandbox({ dataDir: dir, seed: "empty" }, async ({ sb: a }) => {
      expect((await http(a, "PUT", "/creators/early", { body: { name: "Early" } })).status).toBe(201);
      // A second connection to the file sees it at once (committed before the answer was sent).
      const name = await readStore(dir, (st) => st.orgs.values().map((o) => o.creators.get("early")?.name));
      expect(name.filter(Boolean)).toEqual(["Early"]);
    });
  });
  it("without a data dir nothing is written", async () => {
    await withSandbox({ seed: "empty" }, async ({ sb: a }) => {
      expect(a.dataDir).toBeUndefined();
    });
  });
});

describe("unreadable state", () => {
  it("a database file that is not SQLite is a clear usage error, not a crash", async () => {
    const { writeFileSync, mkdirSync, readFileSync } = await import("node:fs");
    const { UsageError } = await import("../../src/errors.js");
    const dir = join(tempDir(), "data");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      dbFile(dir),
      "{ not json, not a database either; long enough to have a header }".repeat(20),
    );
    const err = await withSandbox({ dataDir: dir }, async () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain(dbFile(dir));
    // Nothing was written to it.
    expect(readFileSync(dbFile(dir), "utf8")).toMatch(/^\{ not json/);
  });
  it("a data dir of the earlier format is refused with the command that starts it again", async () => {
    const { writeFileSync, mkdirSync, readdirSync } = await import("node:fs");
    const dir = join(tempDir(), "data");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "sandbox-state.json"), '{"format":2}');
    const err = await withSandbox({ dataDir: dir }, async () => {}).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/storage format of an earlier partner-cli/);
    expect((err as { hint?: string }).hint).toContain(`rm -r "${join(dir, "sandbox-state.json")}"`);
    expect(readdirSync(dir)).toEqual(["sandbox-state.json"]);
  });
});
