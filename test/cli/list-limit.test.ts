// One --limit N on every list: a total cap on the items printed, read across as many pages as it
// takes (from --page; with --all at most N), the page hint on stderr when the cap cut the list,
// streams that stop asking for pages at the cap, and --limit 0 refused before any request. The
// exports' and syncs' per-request size is --page-size; their old --limit is a hidden alias.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { eventsListRun } from "../../src/commands/events/list.js";
import { offersListRun } from "../../src/commands/offers/list.js";
import { redemptionsListRun } from "../../src/commands/redemptions/list.js";
import { rosterListRun } from "../../src/commands/roster/list.js";
import { FEED, makeCampaign, runFn, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

const s = useSandbox({ seed: "demo" });
const REF = "limit-test";
/** A config dir with three stored profiles (for profiles list). */
let profilesDir = "";
/** A config dir with the saved cursors of two exports (for cursors list). */
let cursorsDir = "";

beforeAll(async () => {
  const { id } = await makeCampaign(s.sb, { ...FEED, name: "Limit test", externalReference: REF });
  await simulate(s.sb, { campaign: id, views: 30, claims: 12, redemptions: 12, seed: 7 });
  for (const n of [1, 2]) await makeCampaign(s.sb, { name: `Draft ${n}` });
  for (const n of [1, 2, 3]) {
    const body = { url: `https://hooks.example.com/h${n}`, eventTypes: ["code.issued"] };
    const res = await s.http("POST", "/webhooks", { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  profilesDir = tempDir();
  const profile = (n: number) => ({
    baseUrl: s.url,
    apiKey: `pk_test_limit_${n}`,
    savedAt: "2026-11-01T00:00:00Z",
  });
  writeFileSync(
    join(profilesDir, "config.json"),
    JSON.stringify({
      currentProfile: "a",
      profiles: { a: profile(1), b: profile(2), c: profile(3) },
      cursors: {},
      jobs: {},
    }),
  );
  cursorsDir = tempDir();
  for (const f of ["a.csv", "b.csv"]) {
    const r = await s.run(["redemptions", "export", "--out", join(cursorsDir, f)], { configDir: cursorsDir });
    expect(r.exitCode, r.stderr).toBe(0);
  }
}, 120_000);

interface Case {
  argv: () => string[];
  /** The hint on stderr when --limit 2 cut the list. */
  hint: RegExp;
  /** JSON is {items, nextCursor} (events list). */
  page?: boolean;
  configDir?: () => string;
}

const showing = (noun: string) =>
  new RegExp(`^Showing 1-2 of \\d+ ${noun}; use --limit N.* for more\\.$`, "m");

const CASES: Record<string, Case> = {
  "roster list": { argv: () => ["roster", "list"], hint: showing("creators") },
  "offers list": { argv: () => ["offers", "list"], hint: showing("offers") },
  "campaigns list": { argv: () => ["campaigns", "list"], hint: showing("campaigns") },
  "links list": { argv: () => ["links", "list", REF], hint: showing("links") },
  "redemptions list": { argv: () => ["redemptions", "list", "--preset", "7d"], hint: showing("redemptions") },
  "events list": {
    argv: () => ["events", "list"],
    hint: /^More events: partner-cli events list --after \S+$/m,
    page: true,
  },
  "events types": { argv: () => ["events", "types"], hint: showing("types") },
  "webhooks list": { argv: () => ["webhooks", "list"], hint: showing("endpoints") },
  "profiles list": {
    argv: () => ["profiles", "list"],
    hint: showing("profiles"),
    configDir: () => profilesDir,
  },
  "cursors list": {
    argv: () => ["cursors", "list"],
    hint: /^Showing 1-1 of \d+ cursors; use --limit N for more\.$/m,
    configDir: () => cursorsDir,
  },
};

describe.each(Object.entries(CASES))("%s --limit", (name, c) => {
  const limit = name === "cursors list" ? 1 : 2;
  const run = (extra: string[]) =>
    s.run([...c.argv(), "--limit", String(limit), ...extra], c.configDir ? { configDir: c.configDir() } : {});

  it("prints at most N items, says how to see more on stderr, exit 0", async () => {
    const nd = await run(["--format", "ndjson"]);
    expect(nd.exitCode, nd.stderr).toBe(0);
    expect(nd.stdout.trim().split("\n")).toHaveLength(limit);
    expect(nd.stderr).toMatch(c.hint);
    const tsv = await run(["--format", "tsv"]);
    expect(tsv.stdout.trim().split("\n")).toHaveLength(limit + 1); // the header
    const json = (await run(["--json"])).json<unknown>();
    expect(c.page ? (json as { items: unknown[] }).items : json).toHaveLength(limit);
  });

  it("--limit 0 is refused (exit 2) before any request", async () => {
    const r = await s.run(
      [...c.argv(), "--limit", "0", "--verbose"],
      c.configDir ? { configDir: c.configDir() } : {},
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--limit <n>' argument '0' is invalid\. Expected a number from 1/);
    expect(r.stderr).not.toMatch(/^> (GET|POST)/m);
    expect(r.stdout).toBe("");
  });
});

/** A run function's run with every API request it made ("path?query", from the --verbose trace). */
async function counted(fn: Parameters<typeof runFn>[1], json = false) {
  const r = await runFn(s.sb, fn, {
    globals: { json: true, verbose: true, ...(json ? {} : { format: "ndjson" }) },
  });
  const requests = [...r.stderr.matchAll(/^> [A-Z]+ \S+?\/api\/partner\/v1(\S+)/gm)].map((m) => m[1]!);
  return { ...r, requests, lines: r.stdout.trim() ? r.stdout.trim().split("\n") : [] };
}

const ids = (lines: string[]) => lines.map((l) => JSON.parse(l).externalId as string);
const creators = (r: { requests: string[] }) => r.requests.filter((q) => q.startsWith("/creators?"));

describe("the capped walk (roster list: 12 creators)", () => {
  it("a cap under the page size: one request, N rows", async () => {
    const r = await counted((ctx) => rosterListRun({ limit: 3, pageSize: 5 }, ctx));
    expect(r.exitCode, r.error).toBe(0);
    expect(ids(r.lines)).toEqual(["cr-0001", "cr-0002", "cr-0003"]);
    expect(creators(r)).toEqual(["/creators?page=0&pageSize=5"]);
    expect(r.stderr).toMatch(/^Showing 1-3 of 12 creators; use --limit N, --page P or --all for more\.$/m);
  });

  it("a cap across pages: as many pages as it takes, the last one trimmed", async () => {
    const r = await counted((ctx) => rosterListRun({ limit: 7, pageSize: 5 }, ctx));
    expect(r.lines).toHaveLength(7);
    expect(ids(r.lines).at(-1)).toBe("cr-0007");
    expect(creators(r)).toEqual(["/creators?page=0&pageSize=5", "/creators?page=1&pageSize=5"]);
  });

  it("a cap on a page's end asks for no further page (with --all too)", async () => {
    for (const all of [false, true]) {
      const r = await counted((ctx) => rosterListRun({ limit: 10, pageSize: 5, all }, ctx));
      expect(r.lines).toHaveLength(10);
      expect(creators(r)).toHaveLength(2);
      expect(r.stderr).toMatch(
        all ? /Showing 1-10 of 12 creators; use --limit N for more\./ : /Showing 1-10 of 12/,
      );
    }
  });

  it("--limit pages of its own size when no --page-size; more than the list: every item, no hint", async () => {
    const r = await counted((ctx) => rosterListRun({ limit: 100 }, ctx));
    expect(r.lines).toHaveLength(12);
    expect(creators(r)).toEqual(["/creators?page=0&pageSize=100"]);
    expect(r.stderr).not.toMatch(/Showing/);
  });

  it("--page is where the cap starts", async () => {
    const r = await counted((ctx) => rosterListRun({ page: 1, pageSize: 5, limit: 3 }, ctx));
    expect(ids(r.lines)).toEqual(["cr-0006", "cr-0007", "cr-0008"]);
    expect(r.stderr).toMatch(/^Showing 6-8 of 12 creators; use --limit N, --page P or --all for more\.$/m);
  });

  it("JSON stays a stream of one array, cut at the cap", async () => {
    const r = await counted((ctx) => rosterListRun({ limit: 6, pageSize: 4 }, ctx), true);
    expect(r.json<unknown[]>()).toHaveLength(6);
    expect(creators(r)).toHaveLength(2);
  });

  it("--limit 0 from a script calling the run function: a usage error, no request", async () => {
    const r = await counted((ctx) => rosterListRun({ limit: 0 }, ctx));
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/--limit must be a whole number from 1/);
    expect(r.requests).toEqual([]);
  });
});

describe("--limit with a filter, a pinned range and a cursor feed", () => {
  it("offers --distributable --limit: N distributable offers, however many pages it reads", async () => {
    const r = await counted((ctx) => offersListRun({ distributable: true, limit: 3, pageSize: 3 }, ctx));
    const items = r.lines.map((l) => JSON.parse(l));
    expect(items).toHaveLength(3);
    expect(items.every((o: { canDistribute: boolean }) => o.canDistribute)).toBe(true);
    expect(r.requests.filter((q) => q.startsWith("/offers?")).length).toBeGreaterThan(1);
  });

  it("redemptions list --limit: later pages pinned with the first page's asOf", async () => {
    const r = await counted((ctx) => redemptionsListRun({ preset: "7d", limit: 5, pageSize: 2 }, ctx));
    expect(r.lines).toHaveLength(5);
    const pages = r.requests.filter((q) => q.startsWith("/redemptions?"));
    expect(pages).toHaveLength(3);
    expect(pages[0]).not.toMatch(/asOf=/);
    expect(pages[1]).toMatch(/asOf=/);
    expect(r.stderr).toMatch(/^Showing 1-5 of 12 redemptions; use --limit N, --page P or --all for more\.$/m);
    expect(r.stderr).toMatch(/^5 of 12 redemptions, .* as of /m);
  });

  it("events list: --limit is the total, --page-size each request's size; nextCursor goes on exactly", async () => {
    const r = await counted((ctx) => eventsListRun({ limit: 5, pageSize: 2 }, ctx));
    expect(r.lines).toHaveLength(5);
    expect(r.requests.filter((q) => q.startsWith("/events?")).map((q) => /limit=(\d+)/.exec(q)?.[1])).toEqual(
      ["2", "2", "1"],
    );
    const first = (await counted((ctx) => eventsListRun({ limit: 3 }, ctx), true)).json();
    expect(first.items).toHaveLength(3);
    const next = (
      await counted((ctx) => eventsListRun({ limit: 2, after: first.nextCursor }, ctx), true)
    ).json();
    const five = r.lines.map((l) => JSON.parse(l).id);
    expect([...first.items, ...next.items].map((e: { id: string }) => e.id)).toEqual(five);
  });

  it("events list --all reads to the end of the log: no hint", async () => {
    const all = await counted((ctx) => eventsListRun({ all: true, pageSize: 7 }, ctx));
    expect(all.exitCode, all.error).toBe(0);
    expect(all.requests.filter((q) => q.startsWith("/events?")).length).toBeGreaterThan(1);
    expect(all.stderr).not.toMatch(/More events/);
    const capped = await counted((ctx) => eventsListRun({ limit: all.lines.length - 1 }, ctx));
    expect(capped.stderr).toMatch(/More events/);
  });
});

describe("exports and syncs: --page-size, and the old --limit kept hidden", () => {
  const feedSizes = (stderr: string, path: string) =>
    [...stderr.matchAll(new RegExp(`^> GET \\S+/api/partner/v1${path}\\?\\S*limit=(\\d+)`, "gm"))].map(
      (m) => m[1],
    );

  it("redemptions export --limit N: read as --page-size N, with a notice (none under --quiet)", async () => {
    const dir = tempDir();
    const old = await s.run([
      "redemptions",
      "export",
      "--out",
      join(dir, "old.csv"),
      "--limit",
      "5",
      "--verbose",
    ]);
    expect(old.exitCode, old.stderr).toBe(0);
    expect(old.stderr).toContain(
      "Note: --limit here is now --page-size (items per feed request); read as --page-size 5.",
    );
    expect(new Set(feedSizes(old.stderr, "/redemptions"))).toEqual(new Set(["5"]));
    const renamed = await s.run([
      "redemptions",
      "export",
      "--out",
      join(dir, "new.csv"),
      "--page-size",
      "5",
      "--verbose",
    ]);
    expect(renamed.exitCode).toBe(0);
    expect(renamed.stderr).not.toContain("--limit");
    expect(feedSizes(renamed.stderr, "/redemptions")).toEqual(feedSizes(old.stderr, "/redemptions"));
    const quiet = await s.run([
      "redemptions",
      "export",
      "--out",
      join(dir, "q.csv"),
      "--limit",
      "5",
      "--quiet",
    ]);
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  it("both names at once, or the old one out of range: exit 2, no file", async () => {
    const dir = tempDir();
    const both = await s.run([
      "redemptions",
      "export",
      "--out",
      join(dir, "x.csv"),
      "--limit",
      "5",
      "--page-size",
      "5",
    ]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/--limit is the old name of --page-size here; give only --page-size/);
    const big = await s.run(["events", "sync", "--out", join(dir, "e.ndjson"), "--limit", "5000"]);
    expect(big.exitCode).toBe(2);
    expect(existsSync(join(dir, "x.csv")) || existsSync(join(dir, "e.ndjson"))).toBe(false);
  });

  it("events sync and sync take the old --limit too", async () => {
    const dir = tempDir();
    const ev = await s.run(["events", "sync", "--out", join(dir, "e.ndjson"), "--limit", "50", "--verbose"]);
    expect(ev.exitCode, ev.stderr).toBe(0);
    expect(ev.stderr).toContain("read as --page-size 50.");
    expect(new Set(feedSizes(ev.stderr, "/events"))).toEqual(new Set(["50"]));
    const db = await s.run([
      "sync",
      "--to",
      `sqlite:${join(dir, "p.sqlite")}`,
      "--only",
      "redemptions",
      "--limit",
      "40",
      "--verbose",
    ]);
    expect(db.exitCode, db.stderr).toBe(0);
    expect(db.stderr).toContain("read as --page-size 40.");
    expect(new Set(feedSizes(db.stderr, "/redemptions"))).toEqual(new Set(["40"]));
  });

  it("help shows --page-size, not the old --limit", async () => {
    for (const argv of [["redemptions", "export"], ["events", "sync"], ["sync"]]) {
      const r = await s.run([...argv, "--help"]);
      expect(r.stdout).toMatch(/--page-size <n>/);
      expect(r.stdout).not.toMatch(/--limit/);
    }
  });
});
