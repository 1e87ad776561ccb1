// Authentication, permissions, organization isolation, GET /me and the error body shape.
import { describe, expect, it } from "vitest";
import { strictCreators } from "../../src/spec/creators.js";
import { strictMe } from "../../src/spec/me.js";
import { strictOffers } from "../../src/spec/offers.js";
import { expectError, strict } from "./core-util.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();

async function withHeader(header: string | undefined, method = "GET", path = "/me") {
  const headers: Record<string, string> = {};
  if (header !== undefined) headers.authorization = header;
  const res = await fetch(`${s.url}/api/partner/v1${path}`, { method, headers });
  return { status: res.status, body: await res.json() };
}

describe("authentication (401 unauthenticated)", () => {
  it("a missing key", async () => {
    expectError(await withHeader(undefined), 401, "unauthenticated");
    expectError(await s.http("GET", "/creators", { key: null }), 401, "unauthenticated");
  });
  it("a malformed Authorization header", async () => {
    for (const h of ["Basic abc", "Bearer", "Bearer ", `Bearer ${s.writeKey} extra`, s.writeKey, "Token x"]) {
      expectError(await withHeader(h), 401, "unauthenticated");
    }
  });
  it("an invalid key", async () => {
    expectError(await s.http("GET", "/me", { key: "sk_sandbox_nope" }), 401, "unauthenticated");
    expectError(await s.http("GET", "/me", { key: `${s.writeKey}x` }), 401, "unauthenticated");
  });
  it("a revoked key", async () => {
    expectError(await s.http("GET", "/me", { key: s.sb.testKeys.revokedKey }), 401, "unauthenticated");
  });
  it("a key of a deactivated organization", async () => {
    expectError(await s.http("GET", "/me", { key: s.sb.testKeys.deactivatedOrgKey }), 401, "unauthenticated");
    expectError(
      await s.http("PUT", "/creators/x", { key: s.sb.testKeys.deactivatedOrgKey, body: { name: "X" } }),
      401,
      "unauthenticated",
    );
  });
  it("401 comes before body validation", async () => {
    expectError(await s.http("PUT", "/creators/x", { key: null, rawBody: "{nope" }), 401, "unauthenticated");
  });
  it("the scheme word is case-insensitive", async () => {
    expect((await withHeader(`bearer ${s.writeKey}`)).status).toBe(200);
  });
});

describe("read-only key (403 forbidden on writes)", () => {
  const ro = () => s.sb.testKeys.readOnlyKey;
  it("reads work", async () => {
    const me = strict(strictMe.Me, await s.http("GET", "/me", { key: ro() }));
    expect(me.key.canWrite).toBe(false);
    strict(strictCreators.CreatorPage, await s.http("GET", "/creators", { key: ro() }));
    strict(strictOffers.OfferPage, await s.http("GET", "/offers", { key: ro() }));
  });
  it("PUT /creators/{id} answers 403 and writes nothing", async () => {
    expectError(
      await s.http("PUT", "/creators/ro-new", { key: ro(), body: { name: "Nope" } }),
      403,
      "forbidden",
    );
    expectError(
      await s.http("PUT", "/creators/cr-0001", { key: ro(), body: { name: "Changed" } }),
      403,
      "forbidden",
    );
    expectError(await s.http("GET", "/creators/ro-new"), 404, "not_found");
    const c = strict(strictCreators.Creator, await s.http("GET", "/creators/cr-0001"));
    expect(c.name).toBe("Ada Brooks");
  });
  it("POST /creators/batch answers 403 and writes nothing", async () => {
    expectError(
      await s.http("POST", "/creators/batch", {
        key: ro(),
        body: { creators: [{ externalId: "ro-batch", name: "Nope" }] },
      }),
      403,
      "forbidden",
    );
    expectError(await s.http("GET", "/creators/ro-batch"), 404, "not_found");
  });
  it("403 comes before body validation", async () => {
    expectError(await s.http("POST", "/creators/batch", { key: ro(), rawBody: "{" }), 403, "forbidden");
  });
});

describe("organization isolation (404)", () => {
  it("another organization's creator answers 404", async () => {
    // cr-0002 exists only in Northwind.
    strict(strictCreators.Creator, await s.http("GET", "/creators/cr-0002"));
    expectError(
      await s.http("GET", "/creators/cr-0002", { key: s.sb.testKeys.otherOrgKey }),
      404,
      "not_found",
    );
  });
  it("the same externalId in two organizations are two creators", async () => {
    const mine = strict(strictCreators.Creator, await s.http("GET", "/creators/cr-0001"));
    const theirs = strict(
      strictCreators.Creator,
      await s.http("GET", "/creators/cr-0001", { key: s.sb.testKeys.otherOrgKey }),
    );
    expect(mine.name).not.toBe(theirs.name);
    const put = await s.http("PUT", "/creators/only-globex", {
      key: s.sb.testKeys.otherOrgKey,
      body: { name: "Globex Only" },
    });
    expect(put.status).toBe(201);
    expectError(await s.http("GET", "/creators/only-globex"), 404, "not_found");
    const list = strict(strictCreators.CreatorPage, await s.http("GET", "/creators?pageSize=200"));
    expect(list.items.map((c) => c.externalId)).not.toContain("only-globex");
  });
  it("another organization's offer answers 404 and is not listed", async () => {
    expectError(await s.http("GET", `/offers/${SEED.offers.otherOrg}`), 404, "not_found");
    strict(
      strictOffers.Offer,
      await s.http("GET", `/offers/${SEED.offers.otherOrg}`, { key: s.sb.testKeys.otherOrgKey }),
    );
    const list = strict(strictOffers.OfferPage, await s.http("GET", "/offers?pageSize=200"));
    expect(list.items.map((o) => o.baseGs1)).not.toContain(SEED.offers.otherOrg);
  });
});

describe("GET /me", () => {
  it("names the key, its write permission and the organization", async () => {
    const me = strict(strictMe.Me, await s.http("GET", "/me"));
    expect(me.key).toEqual({ name: "sandbox write key", canWrite: true });
    expect(me.organization.name).toBe("Northwind Creators");
    expect(me.organization.reportingTimeZone).toBe("America/New_York");
    expect(me.organization.id).toMatch(/^[0-9a-f-]{36}$/);
    const other = strict(strictMe.Me, await s.http("GET", "/me", { key: s.sb.testKeys.otherOrgKey }));
    expect(other.organization.name).toBe("Globex Partners");
    expect(other.organization.id).not.toBe(me.organization.id);
  });
});

describe("error body", () => {
  it("is {error:{code,message,details}} with details keyed by field path", async () => {
    const details = expectError(
      await s.http("PUT", "/creators/err-1", { body: { name: "", email: "no", active: "yes" } }),
      400,
      "validation_failed",
      ["name", "email", "active"],
    );
    for (const msgs of Object.values(details ?? {})) {
      expect(msgs.length).toBeGreaterThan(0);
      for (const m of msgs) expect(typeof m).toBe("string");
    }
  });
  it("nested fields are keyed by their dotted path", async () => {
    expectError(
      await s.http("POST", "/creators/batch", { body: { creators: [{ externalId: "a", name: 5 }] } }),
      400,
      "validation_failed",
      ["creators.0.name"],
    );
  });
  it("an unknown route answers 404 in the same shape", async () => {
    expectError(await s.http("GET", "/nothing-here"), 404, "not_found");
  });
});

describe("request body limit", () => {
  it("a body over 16 MB is answered 400 (not a dropped connection)", async () => {
    const big = JSON.stringify({ creators: [{ externalId: "x", name: "y".repeat(16 * 1024 * 1024) }] });
    expectError(await s.http("POST", "/creators/batch", { rawBody: big }), 400, "validation_failed", [
      "body",
    ]);
    expect((await s.http("GET", "/me")).status).toBe(200);
  });
});
