// POST /creators/batch: per-row outcomes, summary counts and the whole-request failures (rules 1-4).
import { describe, expect, it } from "vitest";
import { strictCreators } from "../../src/spec/creators.js";
import { expectError, strict } from "./core-util.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });

const batch = (creators: unknown) => s.http("POST", "/creators/batch", { body: { creators } });
const get = (id: string) => s.http("GET", `/creators/${encodeURIComponent(id)}`);

describe("POST /creators/batch", () => {
  it("reports every row in input order with outcome, reasons and summary counts", async () => {
    await s.http("PUT", "/creators/b-existing", { body: { name: "Existing", email: "e@x.example" } });
    await s.http("PUT", "/creators/b-same", { body: { name: "Same" } });
    const res = strict(
      strictCreators.BatchResult,
      await batch([
        { externalId: "b-new", name: "New One", email: "n@x.example", handle: "@new" },
        { externalId: "b-existing", name: "Existing Renamed" },
        { externalId: "b-same", name: "Same" },
        { externalId: "b-bad-email", name: "Bad", email: "nope" },
        { externalId: "b-no-name" },
        { externalId: "  ", name: "Blank id" },
        { externalId: "b-new", name: "Second appearance" },
      ]),
    );
    expect(res.summary).toEqual({ rows: 7, added: 1, updated: 1, unchanged: 1, rejected: 4 });
    expect(res.rows.map((r) => [r.index, r.externalId, r.outcome])).toEqual([
      [0, "b-new", "added"],
      [1, "b-existing", "updated"],
      [2, "b-same", "updated"], // changed nothing: a documented outcome, counted unchanged above
      [3, "b-bad-email", "rejected"],
      [4, "b-no-name", "rejected"],
      [5, "", "rejected"],
      [6, "b-new", "rejected"],
    ]);
    for (const r of res.rows.slice(0, 3)) expect(r.reasons).toEqual([]);
    expect(res.rows[3]!.reasons.join()).toMatch(/email/);
    expect(res.rows[4]!.reasons.join()).toMatch(/name/);
    expect(res.rows[5]!.reasons.join()).toMatch(/externalId/);
    expect(res.rows[6]!.reasons.join()).toMatch(/earlier in this batch/);
    // Valid rows were saved; rejected rows were not; the second appearance changed nothing.
    expect(strict(strictCreators.Creator, await get("b-new")).name).toBe("New One");
    expect(strict(strictCreators.Creator, await get("b-existing"))).toMatchObject({
      name: "Existing Renamed",
      email: "e@x.example",
    });
    expectError(await get("b-bad-email"), 404, "not_found");
    expectError(await get("b-no-name"), 404, "not_found");
  });
  it("a repeated id is rejected on its second appearance even when the first was rejected", async () => {
    const res = strict(
      strictCreators.BatchResult,
      await batch([
        { externalId: "dup", name: "First", email: "bad" },
        { externalId: " dup ", name: "Second" },
        { externalId: "dup", name: "Third" },
      ]),
    );
    expect(res.rows.map((r) => r.outcome)).toEqual(["rejected", "rejected", "rejected"]);
    expect(res.rows[1]!.externalId).toBe("dup");
    expect(res.summary.rejected).toBe(3);
    expectError(await get("dup"), 404, "not_found");
  });
  it("applies the PUT rules per row: trim, clear with null or empty string, keep when omitted", async () => {
    await batch([{ externalId: "r-1", name: "R", email: "r@x.example", handle: "@r", active: false }]);
    let res = strict(
      strictCreators.BatchResult,
      await batch([{ externalId: "  r-1  ", name: " R ", email: "", handle: null }]),
    );
    expect(res.rows[0]).toMatchObject({ externalId: "r-1", outcome: "updated" });
    expect(strict(strictCreators.Creator, await get("r-1"))).toMatchObject({
      name: "R",
      email: null,
      handle: null,
      active: false,
    });
    res = strict(strictCreators.BatchResult, await batch([{ externalId: "r-1" }]));
    expect(res.rows[0]!.outcome).toBe("updated");
    expect(res.summary).toMatchObject({ updated: 0, unchanged: 1 });
    res = strict(strictCreators.BatchResult, await batch([{ externalId: "r-2", name: "R2" }]));
    expect(strict(strictCreators.Creator, await get("r-2")).active).toBe(true);
  });
  it("an unchanged row keeps updatedAt (row outcome updated, summary unchanged)", async () => {
    const before = strict(strictCreators.Creator, await get("r-2"));
    await s.http("POST", "/advance", { control: true, body: { duration: "1d" } });
    const res = strict(
      strictCreators.BatchResult,
      await batch([{ externalId: "r-2", name: "R2", active: true }]),
    );
    expect(res.rows[0]!.outcome).toBe("updated");
    expect(res.summary).toEqual({ rows: 1, added: 0, updated: 0, unchanged: 1, rejected: 0 });
    expect(strict(strictCreators.Creator, await get("r-2")).updatedAt).toBe(before.updatedAt);
  });
  it("accepts exactly 1,000 creators", async () => {
    const creators = Array.from({ length: 1000 }, (_, i) => ({ externalId: `k-${i}`, name: `K ${i}` }));
    const res = strict(strictCreators.BatchResult, await batch(creators));
    expect(res.summary).toEqual({ rows: 1000, added: 1000, updated: 0, unchanged: 0, rejected: 0 });
    expect(res.rows[999]!.index).toBe(999);
  });
  it("fails the whole request (400) for an empty list, more than 1,000, bad JSON or bad shape", async () => {
    expectError(await batch([]), 400, "validation_failed", ["creators"]);
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ externalId: `t-${i}`, name: "T" }));
    expectError(await batch(tooMany), 400, "validation_failed", ["creators"]);
    expectError(await get("t-0"), 404, "not_found");
    expectError(
      await s.http("POST", "/creators/batch", { rawBody: '{"creators": [' }),
      400,
      "validation_failed",
    );
    expectError(await s.http("POST", "/creators/batch"), 400, "validation_failed", ["creators"]);
    expectError(await s.http("POST", "/creators/batch", { body: [] }), 400, "validation_failed", [
      "creators",
    ]);
    expectError(
      await s.http("POST", "/creators/batch", { body: { creators: "x" } }),
      400,
      "validation_failed",
      ["creators"],
    );
  });
  it("wrongly typed fields fail the whole request with details keyed creators.N.field; nothing is saved", async () => {
    const details = expectError(
      await batch([
        { externalId: "w-ok", name: "OK" },
        { externalId: 12, name: "Numeric id" },
        { externalId: "w-2", name: ["x"] },
        { externalId: "w-3", name: "A", email: false, handle: 3 },
        { externalId: "w-4", name: "A", active: "true" },
        "not an object",
        { name: "missing id" },
      ]),
      400,
      "validation_failed",
      [
        "creators.1.externalId",
        "creators.2.name",
        "creators.3.email",
        "creators.3.handle",
        "creators.4.active",
        "creators.5",
        "creators.6.externalId",
      ],
    );
    expect(details?.["creators.4.active"]).toEqual(["must be true or false"]);
    expectError(await get("w-ok"), 404, "not_found");
  });
  it("a read-only key cannot batch (403)", async () => {
    expectError(
      await s.http("POST", "/creators/batch", {
        key: s.sb.testKeys.readOnlyKey,
        body: { creators: [{ externalId: "x", name: "X" }] },
      }),
      403,
      "forbidden",
    );
  });
});
