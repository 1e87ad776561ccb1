// Share links one at a time: create (201/200), refusals, get, list with the active filter, PATCH {active},
// awkward externalIds in the path.
import { describe, expect, it } from "vitest";
import { SHORT_CODE_RE, strictLinks } from "../../src/spec/links.js";
import { expectError, strict } from "./core-util.js";
import { brandAccess, link, path, putCreator, setStatus } from "./campaigns-fixtures.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox({ seed: "empty" });

const advance = (duration: string) => s.http("POST", "/advance", { control: true, body: { duration } });

describe("POST /campaigns/{id}/creators/{externalId}", () => {
  it("201 with a new active link; the campaign is not activated", async () => {
    const c = await makeCampaign(s.sb);
    await putCreator(s.sb, "ada", { name: "Ada Brooks" });
    const l = await link(s.sb, c.id, "ada", 201);
    expect(l.creator).toEqual({ externalId: "ada", name: "Ada Brooks" });
    expect(l.campaignId).toBe(c.id);
    expect(l.active).toBe(true);
    expect(l.activeOnRoster).toBe(true);
    expect(l.deactivatedAt).toBeNull();
    expect(l.shortCode).toMatch(SHORT_CODE_RE);
    expect(l.shareUrl).toBe(`https://go.sandbox.partner.example/${l.shortCode}`);
    expect(l.statsUrl).toMatch(/^https:\/\/stats\.sandbox\.partner\.example\/[A-Za-z0-9_-]{20,}$/);
    expect(new URL(l.shareUrl).protocol).toBe("https:");
    const after = await s.http("GET", `/campaigns/${c.id}`);
    expect(after.body.status).toBe("draft");
  });

  it("200 with the existing link on repeat, keeping its status (a paused link stays paused)", async () => {
    const c = await makeCampaign(s.sb);
    await putCreator(s.sb, "bao");
    const first = await link(s.sb, c.id, "bao", 201);
    await advance("5m");
    expect(await link(s.sb, c.id, "bao", 200)).toEqual(first);
    const paused = strict(
      strictLinks.ShareLink,
      await s.http("PATCH", path(c.id, "bao"), { body: { active: false } }),
    );
    expect(await link(s.sb, c.id, "bao", 200)).toEqual(paused);
    expect(paused.active).toBe(false);
  });

  it("short codes are unique", async () => {
    const c = await makeCampaign(s.sb);
    const codes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      await putCreator(s.sb, `u${i}`);
      codes.add((await link(s.sb, c.id, `u${i}`)).shortCode);
    }
    expect(codes.size).toBe(40);
  });

  it("refusals: 404 unknown creator or campaign, 409 ended, 409 deactivated creator, 409 brand access lost", async () => {
    const c = await makeCampaign(s.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 5 });
    await putCreator(s.sb, "carmen");
    expectError(await s.http("POST", path(c.id, "nobody")), 404, "not_found");
    expectError(
      await s.http("POST", path("00000000-0000-4000-8000-000000000000", "carmen")),
      404,
      "not_found",
    );
    expectError(
      await s.http("POST", path(c.id, "carmen"), { key: s.sb.testKeys.otherOrgKey }),
      404,
      "not_found",
    );
    expectError(await s.http("POST", path(c.id, "carmen"), { key: s.readOnlyKey }), 403, "forbidden");

    await putCreator(s.sb, "dev", { active: false });
    expectError(await s.http("POST", path(c.id, "dev")), 409, "conflict");

    // an existing link of a creator deactivated later: repeat create → 409 (creator not active)
    await link(s.sb, c.id, "carmen");
    await putCreator(s.sb, "carmen", { active: false });
    expectError(await s.http("POST", path(c.id, "carmen")), 409, "conflict");
    await putCreator(s.sb, "carmen", { active: true });

    await brandAccess(s.sb, c.offer.brand.id, false);
    try {
      await putCreator(s.sb, "elif");
      expectError(await s.http("POST", path(c.id, "elif")), 409, "conflict");
    } finally {
      await brandAccess(s.sb, c.offer.brand.id, true);
    }

    await setStatus(s.sb, c.id, "ended");
    expectError(await s.http("POST", path(c.id, "elif")), 409, "conflict");
    expectError(await s.http("POST", path(c.id, "carmen")), 409, "conflict");
    // reads still work on an ended campaign
    strict(strictLinks.ShareLink, await s.http("GET", path(c.id, "carmen")));
  });

  it("links can be created on draft, active and paused campaigns", async () => {
    const c = await makeCampaign(s.sb);
    await putCreator(s.sb, "st-1");
    await putCreator(s.sb, "st-2");
    await putCreator(s.sb, "st-3");
    await link(s.sb, c.id, "st-1");
    await setStatus(s.sb, c.id, "active");
    await link(s.sb, c.id, "st-2");
    await setStatus(s.sb, c.id, "paused");
    await link(s.sb, c.id, "st-3");
  });

  it("externalIds with '/', '%', spaces and unicode work in every link route", async () => {
    const c = await makeCampaign(s.sb);
    const ids = ["team/alpha", "100%real", "two words", "Zoë 🌟", "a%2Fb", "?q=1#x", "ü/%20 x"];
    for (const id of ids) {
      await putCreator(s.sb, id, { name: `N ${id}` });
      const l = await link(s.sb, c.id, id, 201);
      expect(l.creator.externalId).toBe(id);
      const got = strict(strictLinks.ShareLink, await s.http("GET", path(c.id, id)));
      expect(got).toEqual(l);
      const p = strict(
        strictLinks.ShareLink,
        await s.http("PATCH", path(c.id, id), { body: { active: false } }),
      );
      expect(p.creator.externalId).toBe(id);
      expect(p.active).toBe(false);
    }
    const page = strict(strictLinks.ShareLinkPage, await s.http("GET", `${path(c.id)}?pageSize=200`));
    expect(page.items.map((l) => l.creator.externalId).sort()).toEqual([...ids].sort());
    // "a%2Fb" is its own creator, not "a/b"
    expectError(await s.http("GET", path(c.id, "a/b")), 404, "not_found");
  });
});

describe("GET links", () => {
  it("one link: 404 for a creator without a link, unknown creator, another organization", async () => {
    const c = await makeCampaign(s.sb);
    await putCreator(s.sb, "nolink");
    expectError(await s.http("GET", path(c.id, "nolink")), 404, "not_found");
    expectError(await s.http("GET", path(c.id, "ghost")), 404, "not_found");
    await link(s.sb, c.id, "nolink");
    expectError(
      await s.http("GET", path(c.id, "nolink"), { key: s.sb.testKeys.otherOrgKey }),
      404,
      "not_found",
    );
    strict(strictLinks.ShareLink, await s.http("GET", path(c.id, "nolink"), { key: s.readOnlyKey }));
  });

  it("list: paged wrapper, active filter checks the link status (not the roster), activeOnRoster", async () => {
    const c = await makeCampaign(s.sb);
    for (const id of ["l-a", "l-b", "l-c", "l-d", "l-e"]) {
      await putCreator(s.sb, id);
      await link(s.sb, c.id, id);
    }
    await s.http("PATCH", path(c.id, "l-b"), { body: { active: false } });
    await s.http("PATCH", path(c.id, "l-d"), { body: { active: false } });
    await putCreator(s.sb, "l-c", { active: false }); // roster status only
    const list = async (q: string) =>
      strict(strictLinks.ShareLinkPage, await s.http("GET", `${path(c.id)}${q}`));
    const all = await list("");
    expect(all.totalCount).toBe(5);
    expect(all.pageSize).toBe(50);
    expect(all.items.map((l) => l.creator.externalId)).toEqual(["l-a", "l-b", "l-c", "l-d", "l-e"]);
    const active = await list("?active=true");
    expect(active.items.map((l) => l.creator.externalId)).toEqual(["l-a", "l-c", "l-e"]);
    expect(active.items.find((l) => l.creator.externalId === "l-c")!.activeOnRoster).toBe(false);
    expect(active.items.find((l) => l.creator.externalId === "l-c")!.active).toBe(true);
    const paused = await list("?active=false");
    expect(paused.items.map((l) => l.creator.externalId)).toEqual(["l-b", "l-d"]);
    expect(paused.totalCount).toBe(2);
    const p = await list("?page=1&pageSize=2");
    expect(p.items.map((l) => l.creator.externalId)).toEqual(["l-c", "l-d"]);
    expect(p.totalCount).toBe(5);
    expectError(await s.http("GET", `${path(c.id)}?active=maybe`), 400, "validation_failed", ["active"]);
    expectError(await s.http("GET", path("00000000-0000-4000-8000-000000000000")), 404, "not_found");
    // a campaign without links
    const empty = await makeCampaign(s.sb);
    expect(strict(strictLinks.ShareLinkPage, await s.http("GET", path(empty.id)))).toEqual({
      items: [],
      page: 0,
      pageSize: 50,
      totalCount: 0,
    });
  });
});

describe("PATCH {active}", () => {
  it("false sets deactivatedAt, true clears it; repeating keeps the first time", async () => {
    const c = await makeCampaign(s.sb);
    await putCreator(s.sb, "p-1");
    const l = await link(s.sb, c.id, "p-1");
    await advance("1h");
    const off = strict(
      strictLinks.ShareLink,
      await s.http("PATCH", path(c.id, "p-1"), { body: { active: false } }),
    );
    expect(off.active).toBe(false);
    expect(off.deactivatedAt).not.toBeNull();
    expect(off.deactivatedAt! > l.assignedAt).toBe(true);
    await advance("1h");
    const again = strict(
      strictLinks.ShareLink,
      await s.http("PATCH", path(c.id, "p-1"), { body: { active: false } }),
    );
    expect(again.deactivatedAt).toBe(off.deactivatedAt);
    const on = strict(
      strictLinks.ShareLink,
      await s.http("PATCH", path(c.id, "p-1"), { body: { active: true } }),
    );
    expect(on.active).toBe(true);
    expect(on.deactivatedAt).toBeNull();
    expect(on.assignedAt).toBe(l.assignedAt);
    expect(on.shortCode).toBe(l.shortCode);
  });

  it("400 for a non-boolean or missing active; 404 without a link; works on an ended campaign", async () => {
    const c = await makeCampaign(s.sb);
    await putCreator(s.sb, "p-2");
    await link(s.sb, c.id, "p-2");
    for (const b of [{ active: "false" }, { active: 0 }, { active: null }, {}, [true], "x"])
      expectError(await s.http("PATCH", path(c.id, "p-2"), { body: b }), 400, "validation_failed");
    expectError(await s.http("PATCH", path(c.id, "p-2"), { body: { active: 1 } }), 400, "validation_failed", [
      "active",
    ]);
    expectError(await s.http("PATCH", path(c.id, "ghost"), { body: { active: false } }), 404, "not_found");
    expectError(
      await s.http("PATCH", path(c.id, "p-2"), { key: s.readOnlyKey, body: { active: false } }),
      403,
      "forbidden",
    );
    await setStatus(s.sb, c.id, "ended");
    const p = strict(
      strictLinks.ShareLink,
      await s.http("PATCH", path(c.id, "p-2"), { body: { active: false } }),
    );
    expect(p.active).toBe(false);
  });

  it("resuming the link of a deactivated creator is allowed; activeOnRoster stays false", async () => {
    const c = await makeCampaign(s.sb);
    await putCreator(s.sb, "p-3");
    await link(s.sb, c.id, "p-3");
    await s.http("PATCH", path(c.id, "p-3"), { body: { active: false } });
    await putCreator(s.sb, "p-3", { active: false });
    const on = strict(
      strictLinks.ShareLink,
      await s.http("PATCH", path(c.id, "p-3"), { body: { active: true } }),
    );
    expect(on).toMatchObject({ active: true, activeOnRoster: false, deactivatedAt: null });
  });
});
