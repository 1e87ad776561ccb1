// The sandbox's files (src/sandbox/persist.ts, segments.ts): a journal replayed on open, only what
// changed written, nothing written by reads, a torn last line ignored, compaction, and a data dir of
// the first format (one big sandbox-state.json) read and rewritten once.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { persistedBytes, SandboxPersistence, snapshotPath } from "../../src/sandbox/persist.js";
import { SEG, SEGMENT_MIN_ENTRIES, TrackedMap } from "../../src/sandbox/segments.js";
import { withSandbox } from "../helpers/harness.js";
import type { Store } from "../../src/sandbox/store.js";
import { tempDir } from "../helpers/sandbox.js";
import { dirFiles } from "../helpers/fixtures.js";

interface Creator {
  externalId: string;
  name: string;
  active: boolean;
}

/** A store shaped like the sandbox's, with parts big enough to be segments and blobs. */
function bigStore(creators = 1000): Store {
  const roster = new Map<string, Creator>();
  for (let i = 0; i < creators; i++) {
    const id = `cr-${String(i).padStart(5, "0")}`;
    roster.set(id, { externalId: id, name: `Creator ${i}`, active: i % 7 !== 0 });
  }
  const links = new Map<string, Map<string, { code: string }>>();
  for (const c of ["c1", "c2"]) {
    const m = new Map<string, { code: string }>();
    for (let i = 0; i < 300; i++) m.set(`cr-${String(i).padStart(5, "0")}`, { code: `${c}-${i}` });
    links.set(c, m);
  }
  const events = Array.from({ length: 400 }, (_, i) => ({ id: `ev${i}`, type: "x", data: { n: i } }));
  const org = {
    org: { id: "o1", name: "Org", reportingTimeZone: "UTC", active: true, alertRecipients: [] },
    brands: new Map([["b1", { id: "b1", name: "Brand", access: true }]]),
    creators: roster,
    offers: new Map(),
    events,
    areas: {
      campaigns: {
        seq: 2,
        links,
        failNextJob: new Set(["c2"]),
        jobs: new Map([
          ["j1", { id: "j1", pending: Array.from({ length: 500 }, (_, i) => `p${i}`), cursor: 3 }],
        ]),
      },
    },
  };
  return {
    orgs: new Map([["o1", org]]),
    keys: new Map([["sk_1", { key: "sk_1", name: "k", orgId: "o1", canWrite: true, revoked: false }]]),
    clockOffsetMs: 0,
    defaultKeys: { writeKey: "sk_1", readOnlyKey: "rk_1" },
  } as unknown as Store;
}

/** Everything in a store as plain JSON (segments and blobs loaded on the way). */
function plain(store: Store): unknown {
  return JSON.parse(
    JSON.stringify(store, (_k, v) => {
      if (v instanceof Map) return { $map: [...v.entries()] };
      if (v instanceof Set) return { $set: [...v] };
      return v;
    }),
  );
}

function create(dir: string, store: Store): SandboxPersistence {
  const { persistence, store: none } = SandboxPersistence.open(dir);
  expect(none).toBeUndefined();
  persistence.create(store);
  return persistence;
}

function reopen(dir: string): { p: SandboxPersistence; store: Store } {
  const { persistence, store } = SandboxPersistence.open(dir);
  return { p: persistence, store: store! };
}

const journalOf = (dir: string) => readdirSync(dir).find((f) => f.startsWith("sandbox-journal-"))!;
/** The test store's organization, reached into freely. */
const org = (s: Store): any => s.orgs.get("o1");

describe("sandbox persistence", () => {
  it("a new data dir gets a manifest, an empty journal and a file per big part; all 0600 in 0700", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore());
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    expect(m.format).toBe(2);
    // creators, two link maps, the event log and the job's id list
    expect(Object.keys(m.files)).toHaveLength(5);
    const shardFiles = Object.values(m.files).flatMap((f) => (f as { shards?: string[] }).shards ?? []);
    // The roster (records holding their key, externalId) has a sorted index file; the link maps of
    // this store ({code} records, not keyed by a field of theirs) have none.
    const indexFiles = Object.values(m.files).flatMap((f) => (f as { index?: string }).index ?? []);
    expect(indexFiles).toHaveLength(1);
    expect(readdirSync(join(dir, "sandbox-segments")).length).toBe(shardFiles.length + indexFiles.length + 2);
    expect(readFileSync(join(dir, m.journal), "utf8")).toBe("");
    for (const p of Object.keys(dirFiles(dir))) expect(statSync(p).mode & 0o777, p).toBe(0o600);
    expect(statSync(join(dir, "sandbox-segments")).mode & 0o777).toBe(0o700);
    expect(JSON.stringify(m.root).length).toBeLessThan(2000);
  });

  it("reopened, it holds the same state; big parts stay on disk until used", () => {
    const dir = join(tempDir(), "data");
    const before = bigStore();
    const expected = plain(before);
    create(dir, before);
    const { store } = reopen(dir);
    const creators = org(store).creators as TrackedMap;
    expect(creators).toBeInstanceOf(TrackedMap);
    expect(creators[SEG].loadedShards.size).toBe(0);
    expect(Object.getOwnPropertyDescriptor(org(store), "events")?.get).toBeTypeOf("function");
    expect(plain(store)).toEqual(expected);
    expect(creators[SEG].full).toBe(true);
  });

  it("journal replay: changes of several commits come back, in order, with Map order kept", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore());
    const { p: p2, store: s2 } = reopen(dir);
    const o = org(s2);
    o.creators.get("cr-00010").name = "Changed in place";
    o.creators.set("new-1", { externalId: "new-1", name: "New", active: true });
    o.creators.delete("cr-00020");
    o.areas.campaigns.seq = 3;
    o.events.push({ id: "ev-new", type: "y", data: {} });
    expect(p2.commit(s2)).toBe(true);
    // Moved to the end: deleted, then set again.
    const c5 = o.creators.get("cr-00005");
    o.creators.delete("cr-00005");
    o.creators.set("cr-00005", { ...c5, name: "Back at the end" });
    o.areas.campaigns.links.get("c1").set("cr-00999", { code: "late" });
    expect(p2.commit(s2)).toBe(true);
    const expected = plain(s2);
    const { store: s3 } = reopen(dir);
    expect(plain(s3)).toEqual(expected);
    const keys = [...org(s3).creators.keys()];
    expect(keys.at(-1)).toBe("cr-00005");
    expect(keys.at(-2)).toBe("new-1");
    expect(keys).not.toContain("cr-00020");
  });

  it("a commit writes only what changed: one creator changed is one entry in the journal", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore(5000));
    const { p, store } = reopen(dir);
    const segBytes = () =>
      readdirSync(join(dir, "sandbox-segments")).map(
        (f) => `${f}:${statSync(join(dir, "sandbox-segments", f)).size}`,
      );
    const segsBefore = segBytes();
    // Iterating hands out every record; only the one really changed is written.
    for (const c of org(store).creators.values()) if (c.externalId === "cr-04000") c.name = "Only me";
    expect(p.commit(store)).toBe(true);
    const journal = readFileSync(join(dir, journalOf(dir)), "utf8");
    expect(journal.split("\n").filter(Boolean)).toHaveLength(1);
    expect(journal).toContain("Only me");
    expect(journal).not.toContain("cr-04001");
    expect(journal.length).toBeLessThan(500);
    expect(segBytes()).toEqual(segsBefore);
  });

  it("reads write nothing: loading, getting and iterating every part leaves the files as they were", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore());
    const before = dirFiles(dir);
    const { p, store } = reopen(dir);
    plain(store);
    org(store).creators.get("cr-00001");
    expect(p.commit(store)).toBe(false);
    expect(dirFiles(dir)).toEqual(before);
  });

  it("a crash mid-append: the cut-short last line is ignored, and the next commit replaces it", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore());
    const { p, store } = reopen(dir);
    org(store).creators.get("cr-00001").name = "Committed";
    p.commit(store);
    const committed = plain(store);
    const jpath = join(dir, journalOf(dir));
    const good = readFileSync(jpath, "utf8");
    // What a process killed half-way through writing its next line leaves.
    const { p: p2, store: s2 } = reopen(dir);
    org(s2).creators.get("cr-00002").name = "Never finished";
    p2.commit(s2);
    const whole = readFileSync(jpath, "utf8");
    const next = whole.slice(good.length);
    writeFileSync(jpath, good + next.slice(0, Math.floor(next.length / 2)));

    const { p: p3, store: s3 } = reopen(dir);
    expect(plain(s3)).toEqual(committed);
    org(s3).creators.get("cr-00003").name = "After the crash";
    p3.commit(s3);
    const after = readFileSync(jpath, "utf8");
    expect(after.startsWith(good)).toBe(true);
    expect(after).not.toContain("Never finished");
    expect(after.split("\n").filter(Boolean)).toHaveLength(2);
    const { store: s4 } = reopen(dir);
    expect(org(s4).creators.get("cr-00003").name).toBe("After the crash");
    expect(org(s4).creators.get("cr-00001").name).toBe("Committed");
  });

  it("a journal line that does not match its hash ends the journal there", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore());
    const { p, store } = reopen(dir);
    org(store).creators.get("cr-00001").name = "First";
    p.commit(store);
    org(store).creators.get("cr-00002").name = "Second";
    p.commit(store);
    const jpath = join(dir, journalOf(dir));
    const [first, second] = readFileSync(jpath, "utf8").split("\n");
    writeFileSync(jpath, `${first}\n${second!.replace("Second", "Sekond")}\n`);
    const { store: s2 } = reopen(dir);
    expect(org(s2).creators.get("cr-00001").name).toBe("First");
    expect(org(s2).creators.get("cr-00002").name).toBe("Creator 2");
  });

  it("compaction folds the journal into new files and deletes what is no longer referenced", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore());
    const { p, store } = reopen(dir);
    const o = org(store);
    for (let i = 0; i < 50; i++) {
      o.creators.get(`cr-0000${i % 2}`).name = `Round ${i}`;
      p.commit(store);
    }
    // The second campaign's links are dropped: their file is garbage after compaction.
    o.areas.campaigns.links.delete("c2");
    p.commit(store);
    const oldJournal = journalOf(dir);
    const oldSegments = readdirSync(join(dir, "sandbox-segments"));
    const before = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    const rootBefore = JSON.stringify(before.root);
    const idOf = (name: string) => rootBefore.match(new RegExp(`"${name}":\\{"\\$seg":"([^"]+)"`))![1]!;
    const c2Id = rootBefore.match(/\["c2",\{"\$seg":"([^"]+)"/)?.[1];
    const expected = plain(store);
    p.compact();
    expect(existsSync(join(dir, oldJournal))).toBe(false);
    expect(readFileSync(join(dir, journalOf(dir)), "utf8")).toBe("");
    const after = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    const segments = readdirSync(join(dir, "sandbox-segments"));
    // c2's links are gone (the root after the delete no longer names them), their shard files too.
    const c2Files: string[] = c2Id ? before.files[c2Id].shards : [];
    expect(c2Files.length).toBeGreaterThan(0);
    for (const f of c2Files) expect(segments).not.toContain(f);
    expect(Object.keys(after.files)).not.toContain(c2Id);
    // Only the roster's shards that the journal changed were written again.
    const rosterBefore: string[] = before.files[idOf("creators")].shards;
    const rosterAfter: string[] = after.files[idOf("creators")].shards;
    const rewritten = rosterAfter.filter((f) => !rosterBefore.includes(f));
    expect(rewritten.length).toBeGreaterThan(0);
    expect(rewritten.length).toBeLessThan(rosterAfter.length);
    expect(segments.filter((f) => !oldSegments.includes(f)).sort()).toEqual(rewritten.sort());
    const { store: s2 } = reopen(dir);
    expect(plain(s2)).toEqual(expected);
  });

  it("the journal is compacted by itself once it outgrows the data", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore(200));
    const { p, store } = reopen(dir);
    const o = org(store);
    const pad = "x".repeat(4000);
    let compactions = 0;
    let journal = journalOf(dir);
    for (let i = 0; i < 1200 && compactions === 0; i++) {
      o.creators.get("cr-00001").name = `${pad}${i}`;
      p.commit(store);
      if (journalOf(dir) !== journal) {
        compactions++;
        journal = journalOf(dir);
      }
    }
    expect(compactions).toBe(1);
    expect(persistedBytes(dir)).toBeLessThan(2 * 1024 * 1024);
    const { store: s2 } = reopen(dir);
    expect(org(s2).creators.get("cr-00001").name.startsWith(pad)).toBe(true);
  });

  it("one key reads one shard; new keys set meanwhile come after the stored ones once all is read", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore(5000));
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    const creatorsId = JSON.stringify(m.root).match(/"creators":\{"\$seg":"([^"]+)"/)![1]!;
    expect(m.files[creatorsId].shards.length).toBeGreaterThan(2);
    const { p, store } = reopen(dir);
    const creators = org(store).creators as TrackedMap<string, Creator>;
    expect(creators.get("cr-04321")?.name).toBe("Creator 4321");
    expect(creators[SEG].loadedShards.size).toBe(1);
    creators.set("zz-new", { externalId: "zz-new", name: "New", active: true });
    creators.delete("cr-04321");
    creators.set("cr-04321", { externalId: "cr-04321", name: "Moved", active: true });
    expect(creators[SEG].full).toBe(false);
    p.commit(store);
    const keys = [...creators.keys()];
    expect(creators[SEG].full).toBe(true);
    expect(keys.slice(0, 3)).toEqual(["cr-00000", "cr-00001", "cr-00002"]);
    expect(keys.slice(-2)).toEqual(["zz-new", "cr-04321"]);
    expect(keys).toHaveLength(5001);
    const { store: s2 } = reopen(dir);
    expect([...org(s2).creators.keys()]).toEqual(keys);
  });

  it("records come back with their keys in the same order, whatever the shard's layout", () => {
    const dir = join(tempDir(), "data");
    const s = bigStore(600);
    const roster = org(s).creators as Map<string, Record<string, unknown>>;
    // Same keys everywhere except a few: a shard with one of them is stored as objects, not rows.
    roster.set("odd-1", { name: "Odd", externalId: "odd-1", extra: [1, { deep: true }] });
    roster.set("odd-2", { externalId: "odd-2", name: "Has undefined", active: undefined });
    const expected = new Map([...roster].map(([k, v]) => [k, JSON.stringify(v)]));
    // Values with constant columns (the same brand, active and a null in every record).
    const offers = new Map<string, unknown>();
    for (let i = 0; i < 300; i++)
      offers.set(`o${i}`, { brand: "B", id: `o${i}`, n: i, active: true, gone: null, tags: ["t"] });
    org(s).offers = offers;
    const expectedOffers = new Map([...offers].map(([k, v]) => [k, JSON.stringify(v)]));
    create(dir, s);
    const { store } = reopen(dir);
    const again = org(store).creators as Map<string, unknown>;
    expect(again.size).toBe(expected.size);
    for (const [k, text] of expected) expect(JSON.stringify(again.get(k)), k).toBe(text);
    const offersAgain = org(store).offers as Map<string, unknown>;
    for (const [k, text] of expectedOffers) expect(JSON.stringify(offersAgain.get(k)), k).toBe(text);
    // A constant that is an object or array is not shared between records: each has its own.
    expect((offersAgain.get("o1") as { tags: unknown }).tags).not.toBe(
      (offersAgain.get("o2") as { tags: unknown }).tags,
    );
    // Layouts used: rows with the key column and the constant columns left out of each row.
    const segs = readdirSync(join(dir, "sandbox-segments")).map((f) =>
      readFileSync(join(dir, "sandbox-segments", f), "utf8"),
    );
    expect(segs.some((t) => t.startsWith('{"format":2,"kind":"shard","plain":true,"columns":'))).toBe(true);
    expect(segs.some((t) => /"keyColumn":"externalId"/.test(t.slice(0, 300)))).toBe(true);
    expect(
      segs.some((t) => /"constants":\{"brand":"B","active":true,"gone":null\}/.test(t.slice(0, 300))),
    ).toBe(true);
  });

  it("a plain Map that grows big becomes a segment where it stands", () => {
    const dir = join(tempDir(), "data");
    const s = bigStore(10);
    create(dir, s);
    const { p, store } = reopen(dir);
    const small = org(store).brands as Map<string, unknown>;
    expect(small).not.toBeInstanceOf(TrackedMap);
    for (let i = 0; i < SEGMENT_MIN_ENTRIES; i++)
      small.set(`b${i + 2}`, { id: `b${i + 2}`, name: "B", access: true });
    p.commit(store);
    expect(org(store).brands).toBe(small);
    expect(small).toBeInstanceOf(TrackedMap);
    const { store: s2 } = reopen(dir);
    expect(org(s2).brands).toBeInstanceOf(TrackedMap);
    expect(org(s2).brands.size).toBe(SEGMENT_MIN_ENTRIES + 1);
  });

  it("a missing segment file is an error that names the data dir", () => {
    const dir = join(tempDir(), "data");
    create(dir, bigStore());
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    const creatorsId = JSON.stringify(m.root).match(/"creators":\{"\$seg":"([^"]+)"/)![1]!;
    for (const f of m.files[creatorsId].shards) rmSync(join(dir, "sandbox-segments", f));
    const { store } = reopen(dir);
    expect(() => org(store).creators.get("cr-00001")).toThrow(/sandbox data in .* is damaged/);
  });
});

describe("a data dir of the first format (one sandbox-state.json)", () => {
  /** What the first format's saveSnapshot wrote: the whole store, Maps and Sets tagged. */
  function writeV1(dir: string, store: Store): void {
    mkdirSync(dir, { recursive: true });
    const text = JSON.stringify(store, (_k, v) => {
      if (v instanceof Map) return { $map: [...v.entries()] };
      if (v instanceof Set) return { $set: [...v.values()] };
      return v;
    });
    writeFileSync(snapshotPath(dir), text, { mode: 0o600 });
  }

  it("is read once and rewritten in the new layout, state unchanged", () => {
    const dir = join(tempDir(), "data");
    const old = bigStore();
    const expected = plain(old);
    writeV1(dir, old);
    const { store } = reopen(dir);
    expect(plain(store)).toEqual(expected);
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    expect(m.format).toBe(2);
    expect(Object.keys(m.files)).toHaveLength(5);
    const { store: again } = reopen(dir);
    expect(plain(again)).toEqual(expected);
  });

  it("a big value of the first format (traffic columns as JSON) becomes a blob, not part of the root", () => {
    const dir = join(tempDir(), "data");
    const old = bigStore();
    const column = Buffer.alloc(300_000, 7).toString("base64");
    org(old).areas.traffic = { redemptionCount: 3, redemptions: { code: column, at: column.slice(0, 100) } };
    const expected = plain(old);
    writeV1(dir, old);
    reopen(dir);
    const m = JSON.parse(readFileSync(snapshotPath(dir), "utf8"));
    expect(JSON.stringify(m.root).length).toBeLessThan(5000);
    const { store } = reopen(dir);
    // The deepest big part is the blob (its parents stay small and in the root).
    const traffic = org(store).areas.traffic;
    expect(Object.getOwnPropertyDescriptor(traffic, "redemptions")?.get).toBeTypeOf("function");
    expect(plain(store)).toEqual(expected);
  });

  it("the sandbox serves a data dir of the first format: its creators, its keys", async () => {
    const { saved, keys } = await withSandbox({ seed: "demo" }, async ({ sb: a }) => ({
      saved: plain(a.sandbox.store),
      keys: { writeKey: a.writeKey },
    }));
    const dir = join(tempDir(), "data");
    mkdirSync(dir, { recursive: true });
    writeFileSync(snapshotPath(dir), JSON.stringify(saved), { mode: 0o600 });
    await withSandbox({ dataDir: dir }, async (b) => {
      expect(b.writeKey).toBe(keys.writeKey);
      const r = await b.http("GET", "/creators/cr-0001");
      expect(r.status).toBe(200);
      expect(r.body.name).toBe("Ada Brooks");
      expect(JSON.parse(readFileSync(snapshotPath(dir), "utf8")).format).toBe(2);
    });
  });
});

describe("the served sandbox writes only changes", () => {
  it("GET requests leave the data dir as it was; a PUT adds one journal line", async () => {
    const dir = join(tempDir(), "data");
    await withSandbox({ dataDir: dir, seed: "demo" }, async () => {});
    const before = dirFiles(dir);
    await withSandbox({ dataDir: dir }, async (b) => {
      expect((await b.http("GET", "/creators")).status).toBe(200);
      expect((await b.http("GET", "/creators/cr-0001")).status).toBe(200);
      expect((await b.http("GET", "/me")).status).toBe(200);
    });
    expect(dirFiles(dir)).toEqual(before);
    await withSandbox({ dataDir: dir }, async (c) => {
      expect((await c.http("PUT", "/creators/cr-0001", { body: { name: "Renamed" } })).status).toBe(200);
    });
    const journal = readFileSync(join(dir, journalOf(dir)), "utf8");
    expect(journal.split("\n").filter(Boolean)).toHaveLength(1);
    expect(journal).toContain("Renamed");
  });
});
