// partner-cli api METHOD PATH: in-process runs against a sandbox on port 0, credentials given
// explicitly (PARTNER_BASE_URL + PARTNER_API_KEY, a private config dir).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { feedIds } from "../export/arrange.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir("pcli-api-") });
});
beforeEach(async () => {
  await s.http("DELETE", "/faults", { control: true });
  await s.http("POST", "/reset", { control: true, body: {} });
});

const api = (args: string[], o: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runIn(["api", ...args], { env: { ...env, ...o.env }, stdin: o.stdin });

/** The API key in no output, with or without --verbose. */
function keyAbsent(r: { stdout: string; stderr: string }) {
  expect(r.stdout).not.toContain(s.writeKey);
  expect(r.stderr).not.toContain(s.writeKey);
}

const day = (offset: number) =>
  new Date(s.sb.sandbox.clock.nowMs() + offset * 86_400_000).toISOString().slice(0, 10);

describe("api GET", () => {
  it("prints the service's body as it came; the path with or without its slash or prefix", async () => {
    const direct = await s.http("GET", "/me");
    for (const path of ["/me", "me", "/api/partner/v1/me"]) {
      const r = await api(["GET", path]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(direct.body);
      expect(r.stderr).toBe("");
      keyAbsent(r);
    }
  });

  it("-f/-F become the query string; a query in PATH is kept", async () => {
    await s.http("PUT", "/creators/off-1", { body: { name: "Off", active: false } });
    const r = await api(["GET", "/creators?pageSize=100", "-F", "active=false"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.pageSize).toBe(100);
    expect(body.items.map((c: { externalId: string }) => c.externalId)).toContain("off-1");
    expect(body.items.every((c: { active: boolean }) => c.active === false)).toBe(true);
  });

  it("--include prints the status line and headers on stdout, then a blank line and the body", async () => {
    const r = await api(["GET", "/me", "--include"]);
    expect(r.exitCode).toBe(0);
    const [head, body] = r.stdout.split("\n\n");
    const lines = head!.split("\n");
    expect(lines[0]).toBe("HTTP/1.1 200 OK");
    expect(lines).toContain("content-type: application/json; charset=utf-8");
    expect(JSON.parse(body!).key.canWrite).toBe(true);
    expect(r.stdout.toLowerCase()).not.toContain("authorization");
    keyAbsent(r);
  });

  it("--verbose traces the request on stderr with the key redacted", async () => {
    const r = await api(["GET", "/me", "--verbose", "--include"]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /^> GET http:\/\/127\.0\.0\.1:\d+\/api\/partner\/v1\/me {2}\(authorization: Bearer \*{4}/m,
    );
    expect(r.stderr).toMatch(/^< 200 GET \/me/m);
    keyAbsent(r);
  });

  it("a GET answered 502 is retried like every read", async () => {
    await s.http("POST", "/faults", { control: true, body: { next: ["502", "502"], pathPrefix: "/me" } });
    const r = await api(["GET", "/me"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).organization.name).toBeTruthy();
  });
});

describe("api writes", () => {
  it("POST with -f (text) and -F (typed, nested with [key]) sends a JSON body", async () => {
    const r = await api([
      "POST",
      "/campaigns",
      "-f",
      "name=From the api",
      "-f",
      `baseGs1=${SEED.offers.oats}`,
      "-f",
      `dates[from]=${day(1)}`,
      "-f",
      `dates[through]=${day(20)}`,
      "-F",
      "codeLimit=250",
      "-F",
      "commission[rate]=0.1",
      "-F",
      "commission[estimatedUnitSalePrice]=4.99",
      "-f",
      "externalReference=api-post",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created).toMatchObject({
      name: "From the api",
      status: "draft",
      externalReference: "api-post",
      codes: { limit: 250 },
      commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
      offer: { baseGs1: SEED.offers.oats },
    });
    const list = await s.http("GET", "/campaigns?externalReference=api-post");
    expect(list.body.totalCount).toBe(1);
    keyAbsent(r);
  });

  it("-f keeps text as text; -F types true/false/null and numbers, not identifiers with leading zeros", async () => {
    const r = await api([
      "PUT",
      "/creators/api-1",
      "-f",
      "name=12345",
      "-F",
      "active=false",
      "-F",
      "handle=null",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      externalId: "api-1",
      name: "12345",
      active: false,
      handle: null,
    });
  });

  it("--input FILE and --input - (stdin) send the body as written", async () => {
    const dir = tempDir("pcli-api-in-");
    const file = join(dir, "batch.json");
    const body = {
      creators: [
        { externalId: "in-1", name: "In One" },
        { externalId: "in-2", name: "In Two" },
      ],
    };
    writeFileSync(file, JSON.stringify(body));
    let r = await api(["POST", "/creators/batch", "--input", file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ rows: 2, added: 2, rejected: 0 });
    r = await api(["POST", "/creators/batch", "--input", "-"], {
      stdin: JSON.stringify({ creators: [{ externalId: "in-3", name: "In Three" }] }),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary.added).toBe(1);
    expect((await s.http("GET", "/creators/in-3")).status).toBe(200);
  });

  it("an --input that is not JSON, or empty, is exit 2 and nothing is sent", async () => {
    const dir = tempDir("pcli-api-bad-");
    const file = join(dir, "bad.json");
    writeFileSync(file, "externalId,name\nx-1,Nope\n");
    const before = (await s.http("GET", "/creators")).body.totalCount;
    let r = await api(["POST", "/creators/batch", "--input", file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/is not JSON .*Nothing was sent/);
    expect(r.stdout).toBe("");
    r = await api(["POST", "/creators/batch", "--input", "-"], { stdin: "" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/empty/);
    r = await api(["POST", "/creators/batch", "--input", join(dir, "missing.json")]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Cannot read --input .*ENOENT/);
    expect((await s.http("GET", "/creators")).body.totalCount).toBe(before);
  });

  it("a POST answered 500 (applied, outcome uncertain) is not repeated: one campaign, exit 1", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/campaigns", method: "POST" },
    });
    const r = await api(["POST", "/campaigns", "--input", "-"], {
      stdin: JSON.stringify({
        name: "Once",
        baseGs1: SEED.offers.oats,
        dates: { from: day(1), through: day(10) },
        codeLimit: 10,
        commission: { rate: 0.1, estimatedUnitSalePrice: 1 },
        externalReference: "api-once",
      }),
    });
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe("unexpected_error");
    expect(r.stderr).toMatch(/read the resource back before you repeat/);
    expect((await s.http("GET", "/campaigns?externalReference=api-once")).body.totalCount).toBe(1);
  });
});

describe("api errors", () => {
  it("404: the API's error body on stdout, its message on stderr, exit 5", async () => {
    const r = await api(["GET", "/campaigns/00000000-0000-4000-8000-000000000000"]);
    expect(r.exitCode).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: "not_found", message: expect.any(String) } });
    expect(r.stderr).toMatch(/^Error: .*\(404 not_found; GET \/campaigns\/0{8}/);
    keyAbsent(r);
  });

  it("400: the body with its details on stdout, exit 2; --jq does not touch an error body", async () => {
    const r = await api(["POST", "/campaigns", "-f", "name=x", "--jq", ".name"]);
    expect(r.exitCode).toBe(2);
    const body = JSON.parse(r.stdout);
    expect(body.error.code).toBe("validation_failed");
    expect(Object.keys(body.error.details)).toEqual(expect.arrayContaining(["baseGs1", "codeLimit"]));
    expect(r.stderr).toMatch(/400 validation_failed; POST \/campaigns/);
  });

  it("401 (a wrong key) is exit 4; neither key is printed, not even with --verbose and --include", async () => {
    const wrong = "sk_sandbox_this-is-not-a-key-000000";
    const r = await api(["GET", "/me", "--verbose", "--include"], { env: { PARTNER_API_KEY: wrong } });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 401 Unauthorized/);
    expect(JSON.parse(r.stdout.split("\n\n")[1]!).error.code).toBe("unauthenticated");
    expect(r.stdout + r.stderr).not.toContain(wrong);
    keyAbsent(r);
  });

  it("with --json the failure is also one JSON object on stderr", async () => {
    const r = await api(["GET", "/offers/0000000000000", "--json"]);
    expect(r.exitCode).toBe(5);
    expect(JSON.parse(r.stdout).error.code).toBe("not_found");
    const e = JSON.parse(r.stderr.trim());
    expect(e).toMatchObject({ error: { code: "not_found", status: 404, method: "GET" }, exitCode: 5 });
  });

  it("usage mistakes are exit 2 before any request", async () => {
    const cases: [string[], RegExp][] = [
      [["GET", `${s.url}/api/partner/v1/me`], /is a URL; api takes a path below \/api\/partner\/v1/],
      [["GET", "//evil.example/me"], /is a URL/],
      [["FETCH", "/me"], /METHOD must be one of GET, POST, PUT, PATCH, DELETE/],
      [["GET", "/campaigns/../me"], /"\." or "\.\." segment/],
      [["GET", "/me", "--input", "-"], /GET sends no body/],
      [["POST", "/campaigns", "--paginate"], /--paginate reads lists, with GET only/],
      [["GET", "/creators", "--paginate", "--include"], /with --paginate there are several/],
      [["POST", "/campaigns", "-f", "name"], /-f "name" is not key=value/],
      [["POST", "/campaigns", "-F", "a[][b]=1"], /only a final "\[\]" appends/],
      [["GET", "/me", "--format", "csv"], /argument 'csv' is invalid/],
    ];
    for (const [args, msg] of cases) {
      const r = await api(args, { stdin: "{}" });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(msg);
      expect(r.stdout, args.join(" ")).toBe("");
    }
  });
});

describe("api --paginate", () => {
  it("a paged list: every page, one JSON array in order (the service's page size kept)", async () => {
    const all = (await s.http("GET", "/creators?pageSize=200")).body;
    expect(all.totalCount).toBeGreaterThan(5);
    const r = await api(["GET", "/creators", "-F", "pageSize=5", "--paginate", "--verbose"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const items = JSON.parse(r.stdout);
    expect(items.map((c: { externalId: string }) => c.externalId)).toEqual(
      all.items.map((c: { externalId: string }) => c.externalId),
    );
    // ceil(total / 5) requests, each with pageSize=5.
    const requests = r.stderr.match(/^> GET .*\/creators\?.*$/gm) ?? [];
    expect(requests).toHaveLength(Math.ceil(all.totalCount / 5));
    expect(requests.every((l) => l.includes("pageSize=5"))).toBe(true);
    keyAbsent(r);
  });

  it("a cursor feed (/redemptions): follows nextCursor; NDJSON prints one item per line", async () => {
    (await makeCampaign(s.sb, FEED)).id;
    await simulate(s.sb, { claims: 30, redemptions: 23 });
    const ids = await feedIds(s.sb);
    expect(ids.length).toBe(23);
    const json = await api(["GET", "/redemptions", "-F", "limit=5", "--paginate"]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).map((x: { id: string }) => x.id)).toEqual(ids);
    const nd = await api(["GET", "/redemptions", "-F", "limit=5", "--paginate", "--format", "ndjson"]);
    expect(nd.exitCode, nd.stderr).toBe(0);
    const lines = nd.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(23);
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(ids);
  });

  it("an answer that is no list is printed as it came, with a note", async () => {
    const r = await api(["GET", "/me", "--paginate"]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).key).toBeTruthy();
    expect(r.stderr).toMatch(/neither a paged list .* nor a feed/);
  });

  it("--fields and --jq apply to the combined array", async () => {
    const r = await api(["GET", "/creators", "-F", "pageSize=4", "--paginate", "--fields", "externalId"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const items = JSON.parse(r.stdout);
    expect(items[0]).toEqual({ externalId: expect.any(String) });
    const total = (await s.http("GET", "/creators")).body.totalCount;
    expect(items).toHaveLength(total);
    const n = await api(["GET", "/creators", "-F", "pageSize=4", "--paginate", "--jq", "length"]);
    expect(n.stdout).toBe(`${total}\n`);
  });
});
