// --fields and --jq, applied in one place (the Io) to every command that prints through it: a list,
// a get, a report and api output. In-process runs against a sandbox on port 0.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { createShaper } from "../../src/io/shape.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir("pcli-out-") });
});
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

const run = (args: string[], o: { tty?: boolean } = {}) => runIn(args, { env, ...o });

describe("--fields", () => {
  it("a list, piped: TSV with exactly the fields as columns (nested with dots)", async () => {
    const offers = (await s.http("GET", "/offers?pageSize=200")).body.items;
    const r = await run(["offers", "list", "--fields", "baseGs1,brand.name,state"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("baseGs1\tbrand.name\tstate");
    expect(lines.slice(1)).toEqual(
      offers.map((o: { baseGs1: string; brand: { name: string }; state: string }) =>
        [o.baseGs1, o.brand.name, o.state].join("\t"),
      ),
    );
  });

  it("a list on a terminal: a table whose headers are the fields", async () => {
    const r = await run(["offers", "list", "--fields", "baseGs1,state"], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^baseGs1 {2,}state$/m);
    expect(r.stdout).toContain(SEED.offers.oats);
    expect(r.stdout).not.toContain("Crunchy Oats"); // the brand column was not asked for
  });

  it("a list with --json: the objects with only those keys, nesting kept", async () => {
    const r = await run(["roster", "list", "--json", "--fields", "externalId,active"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const items = JSON.parse(r.stdout);
    expect(items.length).toBeGreaterThan(0);
    for (const c of items) expect(Object.keys(c)).toEqual(["externalId", "active"]);
    const o = await run(["offers", "list", "--json", "--fields", "baseGs1,brand.name,savings.cents"]);
    expect(JSON.parse(o.stdout)[0]).toEqual({
      baseGs1: expect.any(String),
      brand: { name: expect.any(String) },
      savings: expect.anything(),
    });
  });

  it("roster list --all --json (written as a stream) gets them too", async () => {
    const total = (await s.http("GET", "/creators")).body.totalCount;
    const r = await run(["roster", "list", "--all", "--json", "--fields", "externalId"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const items = JSON.parse(r.stdout);
    expect(items).toHaveLength(total);
    expect(items[0]).toEqual({ externalId: "cr-0001" });
  });

  it("a get: 'field value' lines, or the picked object with --json; a null parent stays null", async () => {
    let r = await run([
      "offers",
      "get",
      SEED.offers.oats,
      "--fields",
      "baseGs1,savings.display,codesAvailable",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `baseGs1\t${SEED.offers.oats}\nsavings.display\t$1.50 off\ncodesAvailable\t50000\n`,
    );
    r = await run(["offers", "get", SEED.offers.oats, "--json", "--fields", "baseGs1,savings.display"]);
    expect(JSON.parse(r.stdout)).toEqual({ baseGs1: SEED.offers.oats, savings: { display: "$1.50 off" } });
    await makeCampaign(s, {
      name: "F",
      baseGs1: SEED.offers.oats,
      dates: { from: "2026-11-01", through: "2026-11-30" },
      codeLimit: 10,
      commission: { rate: 0.1, estimatedUnitSalePrice: 2 },
      externalReference: "fields-null",
    });
    r = await run(["campaigns", "get", "fields-null", "--json", "--fields", "retailer.name,codes.limit"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ retailer: null, codes: { limit: 10 } });
  });

  it("a report: one object, fields anywhere in it", async () => {
    const r = await run(["reports", "summary", "--fields", "range.preset,totals.campaigns"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^range\.preset\t30d\ntotals\.campaigns\t\d+\n$/);
  });

  it("api output stays JSON", async () => {
    const r = await run(["api", "GET", "/me", "--fields", "key.canWrite,organization.name"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      key: { canWrite: true },
      organization: { name: expect.any(String) },
    });
    const list = await run(["api", "GET", "/offers", "--fields", "items.baseGs1,totalCount"]);
    const body = JSON.parse(list.stdout);
    expect(Object.keys(body)).toEqual(["items", "totalCount"]);
    expect(body.items[0]).toEqual({ baseGs1: expect.any(String) });
  });

  it("an unknown field is exit 2 naming the fields there are; nothing on stdout", async () => {
    const r = await run(["offers", "get", SEED.offers.oats, "--fields", "baseGs1,brandName"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    // The nested paths are listed, and the flattened name's likely path is named (issue 26).
    expect(r.stderr).toContain(
      '--fields: no field "brandName" in this output ("brandName" may be brand.name).',
    );
    expect(r.stderr).toMatch(/Its fields are: baseGs1, brand\.id, brand\.name, title, .*savings\.display/);
  });

  it("a table's column names are aliases of the JSON paths they show (issue 26)", async () => {
    await makeCampaign(s, {
      name: "Aliased",
      baseGs1: SEED.offers.oats,
      dates: { from: "2026-11-01", through: "2026-11-30" },
      codeLimit: 1234,
      commission: { rate: 0.1, estimatedUnitSalePrice: 2 },
      externalReference: "aliased",
    });
    let r = await run(["campaigns", "list", "--fields", "externalReference,codeLimit,issued"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("externalReference\tcodeLimit\tissued\naliased\t1234\t0\n");
    r = await run(["campaigns", "list", "--json", "--fields", "externalReference,codeLimit"]);
    expect(JSON.parse(r.stdout)).toEqual([{ externalReference: "aliased", codes: { limit: 1234 } }]);
  });

  it("an unknown name in a document lists the nested paths and the table's names (issue 26)", async () => {
    const shaper = createShaper({
      fields: [["codeLimits"]],
      aliases: { codeLimit: "codes.limit" },
      format: "tsv",
      write: () => {},
      stdoutIsTTY: false,
      color: false,
    });
    await expect(
      shaper.push({ kind: "document", value: [{ id: "c1", codes: { limit: 5 } }] }),
    ).rejects.toThrow(/no field "codeLimits"/);
    const err = await shaper
      .push({ kind: "document", value: [{ id: "c1", codes: { limit: 5 } }] })
      .catch((e) => e);
    expect(err.hint).toBe(
      "Its fields are: id, codes.limit; and the table's names: codeLimit (codes.limit) (--json shows the values).",
    );
  });

  it("an empty field list or name is exit 2 before any request", async () => {
    for (const f of ["", ",", "a,,b", "a..b"]) {
      const r = await runIn(["offers", "list", "--fields", f], {
        env: { ...env, PARTNER_BASE_URL: "http://127.0.0.1:1" },
      });
      expect(r.exitCode, f).toBe(2);
      expect(r.stderr, f).toMatch(/--fields/);
      expect(r.stderr, f).not.toMatch(/reach/);
    }
  });
});

describe("--jq", () => {
  it("a list: jq's language, strings printed raw (like jq -r), one result per line when piped", async () => {
    const r = await run(["offers", "list", "--jq", ".[] | select(.canDistribute) | .baseGs1"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      SEED.offers.oats,
      SEED.offers.oatsUnknownSupply,
      SEED.offers.sodaRetail,
      SEED.offers.sodaZero,
    ]);
    const objs = await run(["offers", "list", "--jq", ".[:2][] | {baseGs1, state}"]);
    expect(
      objs.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { baseGs1: SEED.offers.oats, state: "available" },
      { baseGs1: SEED.offers.oatsUnknownSupply, state: "available" },
    ]);
  });

  it("a get, with and without --json; identifiers stay text", async () => {
    for (const extra of [[], ["--json"]]) {
      const r = await run([
        "offers",
        "get",
        SEED.offers.oats,
        ...extra,
        "--jq",
        ".baseGs1, .codesAvailable, .productBarcodes",
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      const [id, codes, barcodes] = r.stdout.trimEnd().split("\n");
      expect(id).toBe(SEED.offers.oats);
      expect(codes).toBe("50000");
      expect(JSON.parse(barcodes!).every((b: unknown) => typeof b === "string")).toBe(true);
    }
  });

  it("api output, after --fields", async () => {
    const r = await run([
      "api",
      "GET",
      "offers",
      "--fields",
      "items.state",
      "--jq",
      '[.items[].state] | unique | join(",")',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("available,expired,not_distributable,not_yet_started,temporarily_unavailable\n");
  });

  it("a plain path the output does not have: jq's null, and a notice naming what it may mean (issue 26)", async () => {
    let r = await run(["offers", "get", SEED.offers.oats, "--jq", ".brandId"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("null\n");
    expect(r.stderr).toContain(
      'Note: --jq: this output has no "brandId" (jq prints null for a missing key); did you mean .brand.id?',
    );
    expect(r.stderr).toMatch(/Its fields are: baseGs1, brand\.id, brand\.name/);
    await makeCampaign(s, {
      name: "Jq",
      baseGs1: SEED.offers.oats,
      dates: { from: "2026-11-01", through: "2026-11-30" },
      codeLimit: 10,
      commission: { rate: 0.1, estimatedUnitSalePrice: 2 },
      externalReference: "jq-alias",
    });
    r = await run(["campaigns", "list", "--jq", ".[].codeLimit"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("did you mean .[].codes.limit?");
    // A path that is there, or under a null parent, says nothing.
    r = await run(["campaigns", "list", "--jq", ".[].retailer.name"]);
    expect(r.stderr).toBe("");
    r = await run(["offers", "get", SEED.offers.oats, "--jq", ".brand.id", "--quiet"]);
    expect(r.stderr).toBe("");
  });

  it("a jq syntax error is exit 2 with jq's message, before anything is done (a create creates nothing)", async () => {
    const before = (await s.http("GET", "/campaigns")).body.totalCount;
    const r = await run([
      "campaigns",
      "create",
      "--name",
      "J",
      "--offer",
      SEED.offers.oats,
      "--from",
      "2026-11-01",
      "--through",
      "2026-11-30",
      "--code-limit",
      "10",
      "--rate",
      "0.1",
      "--unit-price",
      "2",
      "--jq",
      ".id |",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("jq: error: syntax error");
    expect(r.stderr).toContain("jq: 1 compile error");
    expect(r.stdout).toBe("");
    expect((await s.http("GET", "/campaigns")).body.totalCount).toBe(before);
  });

  it("a jq runtime error is exit 2 with jq's message and nothing on stdout", async () => {
    const r = await run(["offers", "list", "--jq", ".foo"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^Error: jq: error \(at <stdin>:\d+\): Cannot index array with string \("foo"\)$/m,
    );
  });

  it("output that is not JSON is refused (exit 2), not passed through", async () => {
    const r = await run(["completion", "bash", "--jq", "."]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/--jq works on JSON output, and this command printed something else/);
  });
});
