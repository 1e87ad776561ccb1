// Lists paged from a segment's sorted index (src/sandbox/sorted-index.ts, paging.ts pageByKey): the
// same pages, order, filters and totals as a list read from every record, with the journal's changes
// and changes not yet written laid over the index, nothing written by a read, and a data dir written
// before indexes still served (read whole) until a compaction gives it its indexes.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pageByKey, paginate } from "../../src/sandbox/paging.js";
import { SandboxPersistence, snapshotPath } from "../../src/sandbox/persist.js";
import { SEG, TrackedMap } from "../../src/sandbox/segments.js";
import type { LinkRecord, Store } from "../../src/sandbox/store.js";
import type { Creator } from "../../src/spec/creators.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { type SandboxFixture, tempDir, withSandbox } from "../helpers/harness.js";
import { dirFiles } from "../helpers/fixtures.js";

/** Ids whose string order is not their number order, with upper case and other first letters. */
const idOf = (i: number) =>
  i % 11 === 0
    ? `Zed-${i}`
    : i % 13 === 0
      ? `alpha-${i}`
      : i % 17 === 0
        ? `CR-${i}`
        : i % 19 === 0
          ? `q"\\é-${i}` // a quote, a backslash and a letter beyond ASCII (escaped in the index file)
          : `cr-${i}`;
const path = (id: string) => encodeURIComponent(id);
const N = 700;

async function must(s: SandboxFixture, method: string, path: string, body?: unknown, status = 200) {
  const r = await s.http(method, path, body === undefined ? {} : { body });
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status);
  return r.body;
}

/**
 * A data dir with N creators (every fifth inactive, added in an order that is not the list's), a
 * campaign with the roster linked and some links deactivated, and changes after that in the journal.
 */
async function filled(): Promise<{ dir: string; campaignId: string }> {
  const dir = join(tempDir(), "data");
  const campaignId = await withSandbox({ dataDir: dir, seed: "demo" }, async (s) => {
    const creators = Array.from({ length: N }, (_, i) => ({
      externalId: idOf(N - 1 - i),
      name: `Creator ${N - 1 - i}`,
      active: (N - 1 - i) % 5 !== 0,
    }));
    await must(s, "POST", "/creators/batch", { creators });
    const c = await makeCampaign(s, { status: "active", creators: "roster", codeLimit: 10_000 });
    for (let i = 1; i < 90; i += 7)
      if (i % 5 !== 0)
        await must(s, "PATCH", `/campaigns/${c.id}/creators/${path(idOf(i))}`, { active: false });
    // After the links were written: a creator renamed, one deactivated, one new.
    await must(s, "PUT", `/creators/${idOf(3)}`, { name: "Renamed" });
    await must(s, "PUT", `/creators/${idOf(4)}`, { active: false });
    await must(s, "PUT", "/creators/aaa-new", { name: "New one" }, 201);
    return c.id;
  });
  return { dir, campaignId };
}

const PAGES = [
  { page: 0, pageSize: 50 },
  { page: 3, pageSize: 7 },
  { page: 3, pageSize: 200 }, // the last page of 700-odd (the ids with a quote and a backslash)
  { page: 14, pageSize: 50 }, // the last page, 14 items
  { page: 100, pageSize: 50 }, // past the end
];
const FLAGS = [undefined, { name: "active", value: true }, { name: "active", value: false }];

function opened(dir: string): Store {
  return SandboxPersistence.open(dir).store!;
}
// The organization with the big roster (found without loading it: `size` would read it whole).
const orgOf = (s: Store) => [...s.orgs.values()].find((o) => o.creators instanceof TrackedMap)!;

/** The list as the handlers made it before indexes: every record, filtered, sorted, sliced. */
function fullRead<V extends { externalId: string; active: boolean }>(
  map: Map<string, V>,
  p: { page: number; pageSize: number },
  flag?: { value: boolean },
) {
  const all = [...map.values()]
    .filter((v) => flag === undefined || v.active === flag.value)
    .sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
  return paginate(all, p);
}

describe("lists paged from the sorted index", () => {
  it("pages, filters and totals equal a read of every record; the page's records alone are read", async () => {
    const { dir, campaignId } = await filled();
    const before = dirFiles(dir);
    const indexed = opened(dir);
    const whole = opened(dir);
    const orgI = orgOf(indexed);
    const orgW = orgOf(whole);
    const linksI = orgI.areas.campaigns!.links.get(campaignId)!;
    const linksW = orgW.areas.campaigns!.links.get(campaignId)!;
    expect(orgI.creators).toBeInstanceOf(TrackedMap);
    expect(linksI).toBeInstanceOf(TrackedMap);
    for (const p of PAGES)
      for (const flag of FLAGS) {
        const label = JSON.stringify({ p, flag });
        const c = pageByKey(orgI.creators, p, flag);
        expect(c, label).toEqual(fullRead(orgW.creators, p, flag));
        const l = pageByKey<LinkRecord>(linksI, p, flag);
        expect(l, label).toEqual(fullRead(linksW, p, flag));
      }
    // Read from the index: no shard of the roster or the links was loaded, nothing counts as changed.
    for (const m of [orgI.creators, linksI] as TrackedMap[]) {
      expect(m[SEG].loadedShards.size).toBe(0);
      expect(m[SEG].touched.size).toBe(0);
      expect(m[SEG].all).toBe(false);
    }
    // The journal's changes are in: renamed, deactivated, new, upper case first, the totals.
    const first = pageByKey(orgI.creators, { page: 0, pageSize: 200 })!;
    expect(first.totalCount).toBe(orgW.creators.size);
    expect(first.totalCount).toBeGreaterThan(N); // the demo roster, the N and the new one
    expect(first.items[0]!.externalId).toBe("CR-102");
    const last = pageByKey(orgI.creators, { page: 3, pageSize: 200 })!;
    expect(last.items.at(-1)!.externalId).toBe(`q"\\é-95`); // escaped in the index file, read back
    expect((orgI.creators as TrackedMap<string, Creator>).peek(idOf(3))!.name).toBe("Renamed");
    const inactive = pageByKey(orgI.creators, { page: 0, pageSize: 200 }, { name: "active", value: false })!;
    expect(inactive.items.map((c) => c.externalId)).toContain(idOf(4));
    expect(inactive.items.map((c) => c.externalId)).not.toContain("aaa-new");
    expect(dirFiles(dir)).toEqual(before);
  });

  it("over HTTP: the roster and a campaign's links, every page, the same as read whole; the data dir unchanged", async () => {
    const { dir, campaignId } = await filled();
    const before = dirFiles(dir);
    const queries = [
      "",
      "page=2&pageSize=30",
      "active=true&page=1&pageSize=100",
      "active=false&pageSize=200",
      "page=9&pageSize=200",
    ];
    const read = (s: SandboxFixture) =>
      Promise.all(
        queries.flatMap((q) => [
          must(s, "GET", `/creators?${q}`),
          must(s, "GET", `/campaigns/${campaignId}/creators?${q}`),
        ]),
      );
    const fromIndex = await withSandbox({ dataDir: dir }, read);
    // updatedSince is not in the index: that list reads every record, and the roster's lists after
    // it read memory (the links are compared with a read of every record in the test above).
    const fromMemory = await withSandbox({ dataDir: dir }, async (s) => {
      await must(s, "GET", "/creators?updatedSince=2000-01-01T00:00:00Z");
      return read(s);
    });
    expect(fromIndex).toEqual(fromMemory);
    const roster = fromIndex[0] as { totalCount: number; items: Creator[] };
    expect(roster.items).toHaveLength(50);
    expect(roster.totalCount).toBeGreaterThan(N);
    // A link shows its creator (read from the roster's shard without loading it) as GET of one link does.
    await withSandbox({ dataDir: dir }, async (s) => {
      const page = await must(s, "GET", `/campaigns/${campaignId}/creators?pageSize=20`);
      for (const l of page.items)
        expect(l).toEqual(
          await must(s, "GET", `/campaigns/${campaignId}/creators/${path(l.creator.externalId)}`),
        );
    });
    expect(dirFiles(dir)).toEqual(before);
  });

  it("a write between two pages: the next page and the totals show it, before and after it is written", async () => {
    const { dir, campaignId } = await filled();
    await withSandbox({ dataDir: dir }, async (s) => {
      const p0 = await must(s, "GET", "/creators?pageSize=20&active=true");
      // A new creator that sorts first, and one of page 0 deactivated.
      await must(s, "PUT", "/creators/AAA-first", { name: "First" }, 201);
      await must(s, "PUT", `/creators/${path(p0.items[5].externalId)}`, { active: false });
      const p1 = await must(s, "GET", "/creators?pageSize=20&page=1&active=true");
      expect(p1.totalCount).toBe(p0.totalCount); // one more, one less
      const again = await must(s, "GET", "/creators?pageSize=20&page=0&active=true");
      expect(again.items[0].externalId).toBe("AAA-first");
      expect(again.items.map((c: Creator) => c.externalId)).not.toContain(p0.items[5].externalId);
      // A link deactivated between two pages of active links.
      const l0 = await must(s, "GET", `/campaigns/${campaignId}/creators?active=true&pageSize=10`);
      await must(s, "PATCH", `/campaigns/${campaignId}/creators/${path(l0.items[0].creator.externalId)}`, {
        active: false,
      });
      const l0again = await must(s, "GET", `/campaigns/${campaignId}/creators?active=true&pageSize=10`);
      expect(l0again.totalCount).toBe(l0.totalCount - 1);
      expect(l0again.items[0]).toEqual(l0.items[1]);
    });
    // Written (the journal), then read by a new process: the same as read whole.
    const indexed = orgOf(opened(dir));
    const whole = orgOf(opened(dir));
    for (const p of PAGES)
      for (const flag of FLAGS)
        expect(pageByKey(indexed.creators, p, flag)).toEqual(fullRead(whole.creators, p, flag));
  });

  it("changes not yet written are laid over the index (records in memory, new keys, deleted keys)", async () => {
    const { dir } = await filled();
    const store = opened(dir);
    const org = orgOf(store);
    const roster = org.creators as TrackedMap<string, Creator>;
    const c = roster.get(idOf(10))!;
    c.active = !c.active; // changed in place, as handlers do
    roster.set("0-new", { ...c, externalId: "0-new" });
    roster.delete(idOf(12));
    const whole = new Map([...orgOf(opened(dir)).creators]);
    whole.get(idOf(10))!.active = c.active;
    whole.set("0-new", { ...c, externalId: "0-new" });
    whole.delete(idOf(12));
    expect(roster[SEG].loadedShards.size).toBeGreaterThan(0);
    for (const p of PAGES)
      for (const flag of FLAGS) expect(pageByKey(roster, p, flag)).toEqual(fullRead(whole, p, flag));
  });
});

describe("compaction and the index", () => {
  const indexOf = (dir: string, segmentId: string): string | null | undefined =>
    JSON.parse(readFileSync(snapshotPath(dir), "utf8")).files[segmentId]?.index;

  it("folding the journal updates the index (new keys, changed flags); a rename alone keeps it", async () => {
    const { dir, campaignId } = await filled();
    const roster = () => orgOf(opened(dir)).creators as TrackedMap;
    const id = roster()[SEG].id;
    const linksId = (orgOf(opened(dir)).areas.campaigns!.links.get(campaignId) as TrackedMap)[SEG].id;
    SandboxPersistence.open(dir).persistence.compact();
    const first = indexOf(dir, id);
    expect(first).toEqual(expect.any(String));
    expect(indexOf(dir, linksId)).toEqual(expect.any(String));
    const check = () => {
      const indexed = orgOf(opened(dir));
      const whole = orgOf(opened(dir));
      const li = indexed.areas.campaigns!.links.get(campaignId)!;
      const lw = whole.areas.campaigns!.links.get(campaignId)!;
      for (const p of PAGES)
        for (const flag of FLAGS) {
          expect(pageByKey(indexed.creators, p, flag)).toEqual(fullRead(whole.creators, p, flag));
          expect(pageByKey<LinkRecord>(li, p, flag)).toEqual(fullRead(lw, p, flag));
        }
    };
    check();
    // A rename only: the same index file after the next compaction.
    await withSandbox({ dataDir: dir }, async (s) => {
      await must(s, "PUT", `/creators/${idOf(20)}`, { name: "Renamed again" });
    });
    SandboxPersistence.open(dir).persistence.compact();
    expect(indexOf(dir, id)).toBe(first);
    check();
    // A new creator, one deactivated, a link deactivated: a new index, right.
    await withSandbox({ dataDir: dir }, async (s) => {
      await must(s, "PUT", "/creators/mid-new", { name: "Mid" }, 201);
      await must(s, "PUT", `/creators/${idOf(21)}`, { active: false });
      await must(s, "PATCH", `/campaigns/${campaignId}/creators/${idOf(22)}`, { active: false });
    });
    SandboxPersistence.open(dir).persistence.compact();
    expect(indexOf(dir, id)).not.toBe(first);
    check();
    expect(
      pageByKey(
        orgOf(opened(dir)).creators,
        { page: 0, pageSize: 200 },
        { name: "active", value: false },
      )!.items.map((c) => c.externalId),
    ).toContain(idOf(21));
  });
});

describe("a data dir without indexes (written before them)", () => {
  /** Takes the indexes out of a data dir (its journal folded first), as the build before them wrote it. */
  function withoutIndexes(dir: string): void {
    SandboxPersistence.open(dir).persistence.compact();
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    for (const f of Object.values(m.files) as { index?: string | null }[]) {
      if (f.index) rmSync(join(dir, "sandbox-segments", f.index));
      delete f.index;
    }
    writeFileSync(snapshotPath(dir), JSON.stringify(m), { mode: 0o600 });
  }

  it("is served read whole, the same lists, unchanged by reads; a compaction gives it its indexes", async () => {
    const { dir, campaignId } = await filled();
    const q = ["pageSize=30&page=2", "active=false", ""];
    const list = (s: SandboxFixture) =>
      Promise.all(
        q.flatMap((x) => [
          must(s, "GET", `/creators?${x}`),
          must(s, "GET", `/campaigns/${campaignId}/creators?${x}`),
        ]),
      );
    const expected = await withSandbox({ dataDir: dir }, list);
    withoutIndexes(dir);
    const before = dirFiles(dir);
    const old = orgOf(opened(dir));
    expect(pageByKey(old.creators, { page: 0, pageSize: 50 })).toBeUndefined();
    expect(await withSandbox({ dataDir: dir }, list)).toEqual(expected);
    expect(dirFiles(dir)).toEqual(before);
    // The next compaction writes the indexes.
    SandboxPersistence.open(dir).persistence.compact();
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    const indexes = (Object.values(m.files) as { index?: string | null }[]).filter((f) => f.index);
    expect(indexes.length).toBeGreaterThanOrEqual(2);
    expect(pageByKey(orgOf(opened(dir)).creators, { page: 0, pageSize: 50 })).toBeDefined();
    expect(await withSandbox({ dataDir: dir }, list)).toEqual(expected);
  });

  it("an index file the manifest names but that is gone: read whole, the same lists", async () => {
    const { dir, campaignId } = await filled();
    const list = (s: SandboxFixture) =>
      Promise.all([
        must(s, "GET", "/creators?page=1"),
        must(s, "GET", `/campaigns/${campaignId}/creators?active=true`),
      ]);
    const expected = await withSandbox({ dataDir: dir }, list);
    SandboxPersistence.open(dir).persistence.compact();
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    for (const f of Object.values(m.files) as { index?: string | null }[])
      if (f.index) rmSync(join(dir, "sandbox-segments", f.index));
    expect(await withSandbox({ dataDir: dir }, list)).toEqual(expected);
  });
});
