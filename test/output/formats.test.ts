// Every list, get and report in every format (--format table|tsv|csv|json|ndjson), each output
// parsed back; the mistakes around --format, --section and --out refused with exit 2 before any
// output; --out writes the file whole, or not at all.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { FEED, makeCampaign, SEED, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

const s = useSandbox({ seed: "demo" });
const REF = "formats-test";
let redemptionId = "";
let eventId = "";
let webhookId = "";
let baseGs1 = "";

beforeAll(async () => {
  const { id } = await makeCampaign(s.sb, { ...FEED, name: `Export test ${REF}`, externalReference: REF });
  await simulate(s.sb, { campaign: id, views: 60, claims: 20, redemptions: 12, seed: 5 });
  const r = await s.run(["redemptions", "list", "--preset", "7d", "--json"]);
  redemptionId = r.json<{ id: string }[]>()[0]!.id;
  const ev = await s.run(["events", "list", "--json"]);
  eventId = ev.json<{ items: { id: string }[] }>().items[0]!.id;
  const wh = await s.run([
    "webhooks",
    "create",
    "--url",
    "https://hooks.example.com/p",
    "--events",
    "code.issued",
    "--json",
  ]);
  webhookId = wh.json<{ webhook: { id: string } }>().webhook.id;
  const offers = await s.run(["offers", "list", "--json"]);
  baseGs1 = offers.json<{ baseGs1: string }[]>()[0]!.baseGs1;
}, 120_000);

/** What a command prints in a format: the key that must come back, and what kind of output it is. */
interface Case {
  argv: () => string[];
  /** list: rows (an array in JSON); record: one object. */
  kind: "list" | "record";
  /** A column (TSV/CSV/table header) or key (JSON) that must be there. */
  key: string;
  /** JSON is the API's page ({items, nextCursor}), not an array (events list: the cursor goes on). */
  page?: boolean;
  /** A report's totals: TSV is a one-row table, as each section of a report is one table. */
  tsvRow?: boolean;
}

const CASES: Record<string, Case> = {
  "offers list": { argv: () => ["offers", "list"], kind: "list", key: "baseGs1" },
  "offers get": { argv: () => ["offers", "get", baseGs1], kind: "record", key: "baseGs1" },
  "campaigns list": { argv: () => ["campaigns", "list"], kind: "list", key: "externalReference" },
  "campaigns get": { argv: () => ["campaigns", "get", REF], kind: "record", key: "externalReference" },
  "roster list": { argv: () => ["roster", "list"], kind: "list", key: "externalId" },
  "roster get": { argv: () => ["roster", "get", "cr-0001"], kind: "record", key: "externalId" },
  "links list": { argv: () => ["links", "list", REF], kind: "list", key: "externalId" },
  "links get": { argv: () => ["links", "get", REF, "cr-0001"], kind: "record", key: "shortCode" },
  "redemptions list": {
    argv: () => ["redemptions", "list", "--preset", "7d"],
    kind: "list",
    key: "serializedGs1",
  },
  "redemptions get": {
    argv: () => ["redemptions", "get", redemptionId],
    kind: "record",
    key: "serializedGs1",
  },
  "events types": { argv: () => ["events", "types"], kind: "list", key: "type" },
  "events list": { argv: () => ["events", "list", "--limit", "5"], kind: "list", key: "type", page: true },
  "events get": { argv: () => ["events", "get", eventId], kind: "record", key: "type" },
  "webhooks list": { argv: () => ["webhooks", "list"], kind: "list", key: "url" },
  "webhooks get": { argv: () => ["webhooks", "get", webhookId], kind: "record", key: "url" },
  "profiles list": { argv: () => ["profiles", "list"], kind: "list", key: "name" },
  "reports summary --section brands": {
    argv: () => ["reports", "summary", "--preset", "7d", "--section", "brands"],
    kind: "list",
    key: "codesIssued",
  },
  "reports summary --section totals": {
    argv: () => ["reports", "summary", "--preset", "7d", "--section", "totals"],
    kind: "record",
    key: "verifiedRedemptions",
    tsvRow: true,
  },
  "reports campaign --section creators": {
    argv: () => ["reports", "campaign", REF, "--preset", "7d", "--section", "creators"],
    kind: "list",
    key: "creator.externalId",
  },
  "reports campaign --section daily": {
    argv: () => ["reports", "campaign", REF, "--preset", "7d", "--section", "daily"],
    kind: "list",
    key: "verifiedRedemptions",
  },
  "reports campaign --section totals": {
    argv: () => ["reports", "campaign", REF, "--preset", "7d", "--section", "totals"],
    kind: "record",
    key: "verifiedRedemptions",
    tsvRow: true,
  },
  "campaigns report --section creators": {
    argv: () => ["campaigns", "report", REF, "--preset", "7d", "--section", "creators"],
    kind: "list",
    key: "creator.externalId",
  },
};

/** A login so `profiles list` has a row (any other command ignores the profile: env wins). */
function profileEnv(): NodeJS.ProcessEnv {
  const dir = tempDir();
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      currentProfile: "p",
      profiles: { p: { baseUrl: s.url, apiKey: "pk_test_formats_1234", savedAt: "2026-11-01T00:00:00Z" } },
      cursors: {},
      jobs: {},
    }),
  );
  return { PARTNER_CLI_CONFIG_DIR: dir };
}

async function runCase(c: Case, format: string, extra: string[] = [], tty = false) {
  const argv = [...c.argv(), "--format", format, "--quiet", ...extra];
  const env = c.argv()[0] === "profiles" ? profileEnv() : {};
  const r = await s.run(argv, { env: { COLUMNS: "80", ...env }, tty });
  expect(r.exitCode, `${argv.join(" ")}\n${r.stderr}`).toBe(0);
  return r;
}

const keyOf = (c: Case) => (c.key === "externalId" && c.argv()[0] === "links" ? "creator" : c.key);

describe.each(Object.entries(CASES))("%s", (_name, c) => {
  it("json: the API's objects", async () => {
    const r = await runCase(c, "json");
    const doc = r.json<unknown>();
    const v = c.page ? (doc as { items: unknown[] }).items : doc;
    if (c.kind === "list") {
      expect(Array.isArray(v)).toBe(true);
      const rows = v as Record<string, unknown>[];
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows[0])).toContain(`"${keyOf(c).split(".")[0]}"`);
    } else {
      expect(JSON.stringify(v)).toContain(`"${c.key}"`);
    }
  });

  it("ndjson: one JSON value per line", async () => {
    const r = await runCase(c, "ndjson");
    const lines = r.stdout.trimEnd().split("\n");
    const values = lines.map((l) => JSON.parse(l) as unknown);
    for (const v of values) expect(Array.isArray(v)).toBe(false);
    if (c.kind === "record") expect(values).toHaveLength(1);
    expect(r.stdout).toContain(`"${keyOf(c).split(".")[0]}"`);
  });

  it("csv: a header row and rows that parse back", async () => {
    const r = await runCase(c, "csv");
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.length).toBeGreaterThan(0);
    if (c.kind === "record") expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toContain(c.key);
  });

  it("tsv: tab-separated, never cut", async () => {
    const r = await runCase(c, "tsv");
    const lines = r.stdout.replace(/\n$/, "").split("\n");
    if (c.kind === "list" || c.tsvRow) {
      const header = lines[0]!.split("\t");
      expect(header).toContain(c.key);
      if (c.tsvRow) expect(lines).toHaveLength(2);
      for (const l of lines.slice(1)) expect(l.split("\t")).toHaveLength(header.length);
    } else {
      // "field<TAB>value" lines (a get with a list after it, as webhooks get, adds a blank line and a table).
      const record = lines.slice(0, lines.includes("") ? lines.indexOf("") : lines.length);
      expect(record.map((l) => l.split("\t")[0])).toContain(c.key);
      for (const l of record) expect(l.split("\t")).toHaveLength(2);
    }
    expect(r.stdout).not.toContain("…");
  });

  it("table on an 80-column terminal: no line wider than 80", async () => {
    const r = await runCase(c, "table", [], true);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(80);
  });
});

describe("tables that fit", () => {
  it("drops the UUID beside the reference first and says so on stderr; --wide shows it", async () => {
    const narrow = await s.run(["campaigns", "list"], { tty: true, env: { COLUMNS: "80" } });
    expect(narrow.exitCode, narrow.stderr).toBe(0);
    const header = narrow.stdout.split("\n")[0]!.split(/ {2,}/);
    expect(header).not.toContain("ID");
    expect(header[0]).toMatch(/^External refer/); // headed in words, cut to its cells when it must
    expect(narrow.stderr).toMatch(/^--wide shows \d+ more columns: ID, [^\n]*Offer/m);
    const wide = await s.run(["campaigns", "list", "--wide"], { tty: true, env: { COLUMNS: "80" } });
    expect(wide.stdout.split("\n")[0]!.split(/ {2,}/)).toEqual(
      expect.arrayContaining(["ID", "External reference", "Offer", "Brand", "Code limit"]),
    );
    expect(wide.stderr).not.toContain("--wide shows");
  });

  it("piped output is TSV, never truncated, whatever COLUMNS says", async () => {
    const r = await s.run(["offers", "list", "--page-size", "200"], { env: { COLUMNS: "40" } });
    expect(r.stdout.split("\n")[0]).toBe(
      "baseGs1\tbrand\ttitle\tstate\tdistributable\tsavings\tredemptionDates\tcodesAvailable\tretailerRule",
    );
    expect(r.stdout).not.toContain("…");
    expect(r.stdout).toContain("optional: freshmart.example");
  });
});

describe("mistakes are refused with exit 2 before anything is printed", () => {
  it("an unknown format", async () => {
    const r = await s.run(["offers", "list", "--format", "xml"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--format must be one of table, tsv, csv, json, ndjson, not "xml"');
    expect(r.stdout).toBe("");
  });

  it("--format json is --json: a failure is one JSON object on stderr", async () => {
    const r = await s.run(["campaigns", "get", "no-such-ref", "--format", "json"]);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "not_found" }, exitCode: 5 });
  });

  it("--json with another --format", async () => {
    const r = await s.run(["campaigns", "list", "--json", "--format", "csv"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--json asks for JSON and --format for csv");
    expect(r.stdout).toBe("");
  });

  it("a whole report as CSV (it has several parts), and an unknown section", async () => {
    const whole = await s.run(["reports", "campaign", REF, "--format", "csv"]);
    expect(whole.exitCode).toBe(2);
    expect(whole.stderr).toContain("A CSV holds one table");
    expect(whole.stderr).toContain("--section (totals, daily, creators)");
    expect(whole.stdout).toBe("");
    const bad = await s.run(["reports", "summary", "--section", "daily"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--section must be one of totals, brands, not "daily"');
    expect(bad.stdout).toBe("");
  });

  it("reports creators: a stdout format with --out", async () => {
    const dir = tempDir();
    const out = join(dir, "c.csv");
    const r = await s.run(["reports", "creators", "--preset", "7d", "--format", "json", "--out", out]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--format json prints on stdout");
    expect(existsSync(out)).toBe(false);
  });
});

describe("--out FILE", () => {
  it("writes the output whole, in the format its name says, and nothing on stdout", async () => {
    const dir = tempDir();
    const csv = join(dir, "offers.csv");
    const r = await s.run(["offers", "list", "--out", csv]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    const rows = parse(readFileSync(csv, "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => x.baseGs1)).toContain(SEED.offers.oats);
    const json = join(dir, "creators.json");
    const j = await s.run([
      "reports",
      "campaign",
      REF,
      "--preset",
      "7d",
      "--section",
      "creators",
      "--out",
      json,
    ]);
    expect(j.exitCode, j.stderr).toBe(0);
    expect(JSON.parse(readFileSync(json, "utf8")).length).toBeGreaterThan(0);
  });

  it("a failed command leaves the file as it was; a missing folder is exit 2", async () => {
    const dir = tempDir();
    const file = join(dir, "campaign.json");
    writeFileSync(file, "before\n");
    const r = await s.run(["campaigns", "list", "--brand", "no-such-brand", "--out", file]);
    expect(r.exitCode).toBe(5);
    expect(readFileSync(file, "utf8")).toBe("before\n");
    const missing = join(dir, "nope", "x.csv");
    const m = await s.run(["offers", "list", "--out", missing]);
    expect(m.exitCode).toBe(2);
    expect(m.stderr).toContain(`Cannot write ${missing}: the folder does not exist.`);
    expect(existsSync(join(dir, "nope"))).toBe(false);
  });
});

describe("lists that stop at a page say so on stderr, in every format", () => {
  it.each(["json", "ndjson", "csv", "tsv"])("roster list --format %s", async (format) => {
    const r = await s.run(["roster", "list", "--page-size", "5", "--format", format]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /Showing 1-5 of \d+ creators \(page 0\); use --page 1, --limit N or --all for more\./,
    );
  });

  it("roster list --json (it used to return a page silently)", async () => {
    const r = await s.run(["roster", "list", "--page-size", "5", "--json"]);
    expect(r.json<unknown[]>()).toHaveLength(5);
    expect(r.stderr).toMatch(/Showing 1-5 of/);
  });

  it("roster list --all --format ndjson and csv stream every row", async () => {
    const total = Number(
      /of (\d+)/.exec((await s.run(["roster", "list", "--page-size", "5", "--json"])).stderr)![1],
    );
    expect(total).toBeGreaterThan(5);
    const nd = await s.run(["roster", "list", "--all", "--page-size", "5", "--format", "ndjson"]);
    expect(nd.stdout.trimEnd().split("\n")).toHaveLength(total);
    const csv = await s.run(["roster", "list", "--all", "--page-size", "5", "--format", "csv"]);
    expect(parse(csv.stdout, { columns: true })).toHaveLength(total);
  });
});

describe("exports honour --json", () => {
  it("roster export --json prints the rows as JSON objects", async () => {
    const r = await s.run(["roster", "export", "--active", "true", "--json", "--quiet"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = r.json<Record<string, unknown>[]>();
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0]!)).toEqual(["externalId", "name", "email", "handle", "active"]);
    expect(rows[0]!.active).toBe(true);
  });

  it("links export --json prints the rows; with --out it prints a summary", async () => {
    const r = await s.run(["links", "export", REF, "--json", "--quiet"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = r.json<Record<string, unknown>[]>();
    expect(Object.keys(rows[0]!)).toEqual([
      "externalId",
      "name",
      "shareUrl",
      "shortCode",
      "statsUrl",
      "active",
    ]);
    const out = join(tempDir(), "links.csv");
    const f = await s.run(["links", "export", REF, "--json", "--quiet", "--out", out]);
    expect(f.json<{ summary: { rows: number; out: string } }>().summary).toEqual({ rows: rows.length, out });
    const refused = await s.run(["links", "export", REF, "--json", "--format", "xlsx"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe("");
  });
});
