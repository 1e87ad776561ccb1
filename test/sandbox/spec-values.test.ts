// The sandbox sends and accepts only what the spec documents (issue 22, item 3): batch row outcomes
// are added, updated and rejected (a row that changed nothing reports "updated", the summary counts it
// unchanged) and the roster import still counts unchanged rows right; the redemption feed's limit
// outside 1..1,000 is a 400 naming the field while the event log clamps it; and the documented-values check of the harness
// (test/helpers/documented.ts) catches what the spec does not document.
import { describe, expect, it } from "vitest";
import { reduceAnswer } from "../../src/commands/roster/import/send.js";
import type { Route } from "../../src/sandbox/http.js";
import { startSandbox } from "../../src/sandbox/server.js";
import { makeCampaign, simulate, TRAFFIC } from "../helpers/fixtures.js";
import { DOCUMENTED, documentedValuesCheck, undocumented } from "../helpers/documented.js";
import { useSandbox } from "../helpers/harness.js";
import { http } from "../helpers/sandbox.js";
import { writeTemp } from "../roster/harness.js";
import { expectError } from "./core-util.js";

const s = useSandbox({ seed: "empty" });

describe("batch row outcomes: only added, updated, rejected", () => {
  it("a row that changes nothing reports updated and is counted unchanged in the summary", async () => {
    await s.http("PUT", "/creators/sv-1", { body: { name: "One" } });
    await s.http("PUT", "/creators/sv-2", { body: { name: "Two" } });
    const res = await s.http("POST", "/creators/batch", {
      body: {
        creators: [
          { externalId: "sv-1", name: "One" },
          { externalId: "sv-2", name: "Two renamed" },
          { externalId: "sv-3", name: "Three" },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.rows.map((r: { outcome: string }) => r.outcome)).toEqual(["updated", "updated", "added"]);
    expect(res.body.summary).toEqual({ rows: 3, added: 1, updated: 1, unchanged: 1, rejected: 0 });
  });

  it("roster import run twice: the second run counts every row unchanged, none updated", async () => {
    const file = writeTemp(
      "externalId,name,email\nri-1,Ada,ada@x.example\nri-2,Grace,\nri-3,Linus,l@x.example\n",
    );
    const first = await s.run(["roster", "import", file, "--json"]);
    expect(first.exitCode).toBe(0);
    expect(first.json().summary).toMatchObject({ rows: 3, added: 3, updated: 0, unchanged: 0, rejected: 0 });
    const again = await s.run(["roster", "import", file]);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain("3 rows in 1 batch: 0 added, 0 updated, 3 unchanged, 0 rejected.");
    const edited = writeTemp(
      "externalId,name,email\nri-1,Ada L.,ada@x.example\nri-2,Grace,\nri-3,Linus,l@x.example\n",
    );
    const third = await s.run(["roster", "import", edited, "--json"]);
    expect(third.json().summary).toMatchObject({ added: 0, updated: 1, unchanged: 2, rejected: 0 });
  });

  it("reduceAnswer splits accepted rows by the summary, and does not trust a summary that does not fit", () => {
    const row = (index: number, outcome: string, reasons: string[] = []) => ({
      index,
      externalId: `e${index}`,
      outcome,
      reasons,
    });
    const rows = [
      row(0, "updated"),
      row(1, "added"),
      row(2, "updated"),
      row(3, "rejected", ["x"]),
      row(4, "updated"),
    ];
    const answer = (unchanged: number) => ({
      summary: { rows: 5, added: 1, updated: 3 - unchanged, unchanged, rejected: 1 },
      rows,
    });
    expect(reduceAnswer(answer(2) as never, 5).counts).toEqual({
      added: 1,
      updated: 1,
      unchanged: 2,
      rejected: 1,
    });
    expect(reduceAnswer(answer(0) as never, 5).counts).toEqual({
      added: 1,
      updated: 3,
      unchanged: 0,
      rejected: 1,
    });
    // More unchanged than accepted updates: the rows decide.
    expect(reduceAnswer(answer(4) as never, 5).counts).toEqual({
      added: 1,
      updated: 3,
      unchanged: 0,
      rejected: 1,
    });
    // An older sandbox's "unchanged" row outcome still counts as unchanged (not twice).
    const old = {
      summary: { rows: 2, added: 0, updated: 1, unchanged: 1, rejected: 0 },
      rows: [row(0, "unchanged"), row(1, "updated")],
    };
    expect(reduceAnswer(old as never, 2).counts).toEqual({ added: 0, updated: 1, unchanged: 1, rejected: 0 });
  });
});

describe("bounds", () => {
  it("the redemption feed refuses a limit outside 1..1,000 naming it; the event log clamps it", async () => {
    for (const bad of ["0", "-1", "1001", "5000"]) {
      const r = await s.http("GET", `/redemptions?limit=${bad}`);
      expectError(r, 400, "validation_failed", ["limit"]);
      expect(r.body.error.details.limit).toEqual(["must be between 1 and 1,000"]);
    }
    expect((await s.http("GET", "/redemptions?limit=1000")).status).toBe(200);
    expect((await s.http("GET", "/redemptions?limit=1")).status).toBe(200);
    await makeCampaign(s.sb, { status: "active" });
    await makeCampaign(s.sb, { status: "active" });
    expect((await s.http("GET", "/events?limit=0")).body.items).toHaveLength(1);
    expect((await s.http("GET", "/events?limit=5000")).body.items.length).toBeGreaterThan(1);
  });
});

describe("the documented-values check", () => {
  it("knows every API route of the sandbox", async () => {
    const { ROUTES } = await import("../../src/sandbox/routes.js");
    const api = ROUTES.filter((r) => r.kind === "api").map((r) => `${r.method} ${r.path}`);
    expect(Object.keys(DOCUMENTED).sort()).toEqual(api.sort());
  });

  it("sees every API answer (not control answers) and flags an undocumented field, enum value or error", async () => {
    const seen: { route: Route; status: number; body: unknown }[] = [];
    const sb = await startSandbox({
      port: 0,
      seed: "demo",
      onAnswer: (route, status, body) => seen.push({ route, status, body }),
    });
    try {
      await makeCampaign(sb, TRAFFIC);
      await simulate(sb, { claims: 3, redemptions: 3 });
      seen.length = 0;
      await http(sb, "GET", "/offers");
      await http(sb, "GET", "/redemptions?limit=3");
      await http(sb, "GET", "/creators/nobody");
      await http(sb, "GET", "/clock", { control: true });
    } finally {
      await sb.close();
    }
    expect(seen.map((x) => `${x.route.method} ${x.route.path} ${x.status}`)).toEqual([
      "GET /offers 200",
      "GET /redemptions 200",
      "GET /creators/:externalId 404",
    ]);
    for (const x of seen)
      expect(undocumented(`${x.route.method} ${x.route.path}`, x.status, x.body)).toBeUndefined();

    const offers = seen[0]!.body as { items: Record<string, unknown>[] };
    const withField = { ...offers, items: [{ ...offers.items[0], internalNote: "x" }] };
    expect(undocumented("GET /offers", 200, withField)).toMatch(/internalNote/);
    const withState = { ...offers, items: [{ ...offers.items[0], state: "paused" }] };
    expect(undocumented("GET /offers", 200, withState)).toMatch(/items\.0\.state/);
    const feed = JSON.parse(String(seen[1]!.body));
    feed.items[0].countingState = "voided";
    expect(undocumented("GET /redemptions", 200, JSON.stringify(feed))).toMatch(/countingState/);
    const batch = {
      summary: { rows: 1, added: 0, updated: 0, unchanged: 1, rejected: 0 },
      rows: [{ index: 0, externalId: "a", outcome: "unchanged", reasons: [] }],
    };
    expect(undocumented("POST /creators/batch", 200, batch)).toMatch(/rows\.0\.outcome/);
    expect(undocumented("GET /me", 409, { error: { code: "not_found", message: "x" } })).toBe(
      "not_found answered with status 409",
    );
    expect(undocumented("GET /me", 400, { error: { code: "bad_thing", message: "x" } })).toMatch(
      /error\.code/,
    );
    expect(undocumented("DELETE /webhooks/:id", 204, { deleted: true })).toBe(
      "a body where the spec documents none",
    );
  });

  it("keeps what it found, for the harness to fail the file with", () => {
    const check = documentedValuesCheck();
    const route = { method: "GET", path: "/me", kind: "api" } as Route;
    check.hook(route, 200, {
      key: { name: "k", canWrite: true },
      organization: { id: "o", name: "O", reportingTimeZone: "UTC" },
    });
    expect(check.found).toEqual([]);
    check.hook(route, 200, {
      key: { name: "k", canWrite: true, scopes: [] },
      organization: { id: "o", name: "O", reportingTimeZone: "UTC" },
    });
    expect(check.found).toHaveLength(1);
    expect(check.found[0]).toMatch(/^GET \/me → 200: key: Unrecognized key: "scopes"/);
  });
});
