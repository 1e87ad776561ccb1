// Issue 26, item 6: a refused value is told in the flag the user typed, not the API's field name
// (`--state`, not `countingState`; "--from needs --through"), and an offer id that lost its leading
// zeros (a spreadsheet's doing) is answered with the id it was.
import { beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/seed.js";
import { day } from "../campaigns/helpers.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

describe("validation messages name the flag typed", () => {
  it("redemptions list --state bogus: --state, not countingState (exit 2)", async () => {
    const r = await s.run(["redemptions", "list", "--state", "bogus"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("Error: --state must be one of counted, excluded, test_code.");
    expect(r.stderr).toContain("  --state: must be one of counted, excluded, test_code");
    expect(r.stderr).not.toContain("countingState");
  });

  it("offers list --state bogus: the API's answer names --state", async () => {
    const r = await s.run(["offers", "list", "--state", "bogus"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^ {2}--state: must be one of available/m);
  });

  it("--from without --through (and the reverse): the flag typed needs the other, before any request", async () => {
    const from = await s.run(["redemptions", "list", "--from", "2026-11-01"]);
    expect(from.exitCode).toBe(2);
    expect(from.stderr).toContain("--from needs --through (a range is both days, YYYY-MM-DD)");
    expect(from.stderr).not.toMatch(/is required with/);
    const through = await s.run(["reports", "summary", "--through", "2026-11-01"]);
    expect(through.exitCode).toBe(2);
    expect(through.stderr).toContain("--through needs --from (a range is both days, YYYY-MM-DD)");
    const both = await s.run(["reports", "summary", "--preset", "7d", "--from", "2026-11-01"]);
    expect(both.stderr).toContain("--preset: must not be combined with --from or --through");
    const order = await s.run(["reports", "summary", "--from", "2026-11-02", "--through", "2026-11-01"]);
    expect(order.stderr).toContain("--through: must be on or after --from");
  });
});

describe("an offer id without its leading zeros", () => {
  const typed = SEED.offers.oats.replace(/^0+/, ""); // 12345000011

  it("offers get 12345000011: exit 5, suggests 0012345000011", async () => {
    const r = await s.run(["offers", "get", typed]);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain(
      `No offer ${typed} is visible to this organization. Did you mean ${SEED.offers.oats}? (Leading zeros are part of an offer id; spreadsheets drop them.)`,
    );
  });

  it("campaigns create --offer 12345000011: exit 2, suggests 0012345000011, nothing created", async () => {
    const flags = ["--name", "N", "--from", day(0), "--through", day(5), "--code-limit", "5"];
    const r = await s.run([
      "campaigns",
      "create",
      "--offer",
      typed,
      ...flags,
      "--rate",
      "0.1",
      "--unit-price",
      "1",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `--offer: no offer ${typed} is visible to this organization. Did you mean ${SEED.offers.oats}?`,
    );
    expect((await s.http("GET", "/campaigns")).body.totalCount).toBe(0);
  });

  it("an id that is no offer's, with or without zeros, gets no suggestion", async () => {
    const r = await s.run(["offers", "get", "999"]);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).not.toContain("Did you mean");
  });
});
