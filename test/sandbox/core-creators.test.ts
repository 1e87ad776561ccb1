// Creators: GET list/get and PUT upsert with every rule of the Creator table.
import { describe, expect, it } from "vitest";
import { getCreator, listCreators, putCreator } from "../../src/api/creators.js";
import { strictCreators } from "../../src/spec/creators.js";
import { http } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });

// Path segments are encoded as the client does ("." and ".." as %2E so URL normalization keeps them).
const enc = (id: string) => (/^\.+$/.test(id) ? id.replace(/\./g, "%2E") : encodeURIComponent(id));
const put = (id: string, body: unknown) => s.http("PUT", `/creators/${enc(id)}`, { body });
const get = async (id: string) => strict(strictCreators.Creator, await s.http("GET", `/creators/${enc(id)}`));
const advance = (duration: string) => s.http("POST", "/advance", { control: true, body: { duration } });

describe("PUT /creators/{externalId}", () => {
  it("answers 201 for a new creator and 200 for an existing one, without duplicates", async () => {
    const a = await put("c-1", { name: "Ann" });
    const created = strict(strictCreators.Creator, a, 201);
    expect(created).toMatchObject({
      externalId: "c-1",
      name: "Ann",
      email: null,
      handle: null,
      active: true,
    });
    expect(created.createdAt).toBe(created.updatedAt);
    const b = strict(strictCreators.Creator, await put("c-1", { name: "Ann B" }), 200);
    expect(b.name).toBe("Ann B");
    expect(b.createdAt).toBe(created.createdAt);
    strict(strictCreators.Creator, await put("c-1", { name: "Ann B" }), 200);
    const list = strict(strictCreators.CreatorPage, await s.http("GET", "/creators"));
    expect(list.items.filter((c) => c.externalId === "c-1")).toHaveLength(1);
  });
  it("trims the externalId and string fields", async () => {
    const c = strict(
      strictCreators.Creator,
      await put("  c-trim \t", { name: "  Trim Me ", email: " t@x.example ", handle: "  @trim  " }),
      201,
    );
    expect(c).toMatchObject({ externalId: "c-trim", name: "Trim Me", email: "t@x.example", handle: "@trim" });
    expect((await get("c-trim")).name).toBe("Trim Me");
    // The untrimmed id finds the same creator.
    expect((await get(" c-trim ")).externalId).toBe("c-trim");
  });
  it("name is required for a new creator and must not be blank", async () => {
    expectError(await put("c-noname", {}), 400, "validation_failed", ["name"]);
    expectError(await put("c-noname", { name: null }), 400, "validation_failed", ["name"]);
    expectError(await put("c-noname", { name: "   " }), 400, "validation_failed", ["name"]);
    expectError(await put("c-noname", { email: "a@b.example" }), 400, "validation_failed", ["name"]);
    expectError(await s.http("GET", "/creators/c-noname"), 404, "not_found");
  });
  it("on update, an omitted or null name keeps the current one; a blank one is rejected", async () => {
    await put("c-keep", { name: "Keeper", email: "k@x.example", handle: "@k" });
    expect(strict(strictCreators.Creator, await put("c-keep", { name: null })).name).toBe("Keeper");
    expect(strict(strictCreators.Creator, await put("c-keep", { active: true })).name).toBe("Keeper");
    expectError(await put("c-keep", { name: "" }), 400, "validation_failed", ["name"]);
    expect((await get("c-keep")).name).toBe("Keeper");
  });
  it("email and handle: omit keeps, null or empty string clears", async () => {
    await put("c-clear", { name: "Clear", email: "c@x.example", handle: "@c" });
    let c = strict(strictCreators.Creator, await put("c-clear", { name: "Clear 2" }));
    expect([c.email, c.handle]).toEqual(["c@x.example", "@c"]);
    c = strict(strictCreators.Creator, await put("c-clear", { email: null }));
    expect([c.email, c.handle]).toEqual([null, "@c"]);
    c = strict(strictCreators.Creator, await put("c-clear", { email: "c@x.example", handle: "" }));
    expect([c.email, c.handle]).toEqual(["c@x.example", null]);
    c = strict(strictCreators.Creator, await put("c-clear", { email: "", handle: null }));
    expect([c.email, c.handle]).toEqual([null, null]);
    c = strict(strictCreators.Creator, await put("c-clear", { email: "   " }));
    expect(c.email).toBeNull();
  });
  it("fields are one line", async () => {
    expectError(await put("c-ml", { name: "Two\nLines" }), 400, "validation_failed", ["name"]);
    expectError(await put("c-ml", { name: "CR\rhere" }), 400, "validation_failed", ["name"]);
    expectError(await put("c-ml", { name: "ok", handle: "@a\nb" }), 400, "validation_failed", ["handle"]);
    expectError(await put("c-ml", { name: "ok", email: "a\n@b.example" }), 400, "validation_failed", [
      "email",
    ]);
    expectError(await put("line\nbreak", { name: "ok" }), 400, "validation_failed", ["externalId"]);
  });
  it("length limits: externalId 100, name 200, email 254, handle 100", async () => {
    const id100 = "i".repeat(100);
    strict(strictCreators.Creator, await put(id100, { name: "n".repeat(200) }), 201);
    expectError(await put("i".repeat(101), { name: "x" }), 400, "validation_failed", ["externalId"]);
    expectError(await put("c-len", { name: "n".repeat(201) }), 400, "validation_failed", ["name"]);
    const email254 = `${"e".repeat(254 - "@x.example".length)}@x.example`;
    expect(email254).toHaveLength(254);
    // The local part above 64 characters is still accepted: the spec's only limit is 254.
    strict(
      strictCreators.Creator,
      await put("c-len", { name: "L", email: email254, handle: "h".repeat(100) }),
      201,
    );
    expectError(await put("c-len", { email: `e${email254}` }), 400, "validation_failed", ["email"]);
    expectError(await put("c-len", { handle: "h".repeat(101) }), 400, "validation_failed", ["handle"]);
    // Characters, not bytes: 100 multi-byte characters fit.
    const uni = "é".repeat(100);
    strict(strictCreators.Creator, await put(uni, { name: "😀".repeat(200) }), 201);
    expect((await get(uni)).externalId).toBe(uni);
    // Astral characters (two UTF-16 units) count once.
    const emoji = "😀".repeat(100);
    strict(strictCreators.Creator, await put(emoji, { name: "E", handle: "🎉".repeat(100) }), 201);
    expect((await get(emoji)).externalId).toBe(emoji);
    expectError(await put(`${emoji}😀`, { name: "E" }), 400, "validation_failed", ["externalId"]);
    expectError(await put("c-emoji", { name: "😀".repeat(201) }), 400, "validation_failed", ["name"]);
  });
  it("emails must be valid addresses", async () => {
    for (const bad of [
      "plain",
      "a@",
      "@b.example",
      "a@b",
      "a b@c.example",
      "a@@b.example",
      "a@b..example",
      "a@-b.example",
    ]) {
      expectError(await put("c-mail", { name: "M", email: bad }), 400, "validation_failed", ["email"]);
    }
    for (const good of ["a@b.example", "first.last+tag@sub.domain.example", "x_y-z@mail.co"]) {
      const res = await put("c-mail", { name: "M", email: good });
      const c = strict(strictCreators.Creator, res, res.status === 201 ? 201 : 200);
      expect(c.email).toBe(good);
    }
  });
  it("active defaults to true for a new creator; omitted on update keeps it", async () => {
    expect(strict(strictCreators.Creator, await put("c-act", { name: "A" }), 201).active).toBe(true);
    expect(strict(strictCreators.Creator, await put("c-act", { active: false })).active).toBe(false);
    expect(strict(strictCreators.Creator, await put("c-act", { name: "A2" })).active).toBe(false);
    expect(
      strict(strictCreators.Creator, await put("c-inact", { name: "I", active: false }), 201).active,
    ).toBe(false);
  });
  it("wrong types and bodies are 400", async () => {
    expectError(await put("c-type", { name: "T", active: "true" }), 400, "validation_failed", ["active"]);
    expectError(await put("c-type", { name: 7 }), 400, "validation_failed", ["name"]);
    expectError(await put("c-type", { name: "T", email: 1 }), 400, "validation_failed", ["email"]);
    expectError(await put("c-type", [1]), 400, "validation_failed", ["body"]);
    expectError(await s.http("PUT", "/creators/c-type"), 400, "validation_failed", ["body"]);
    expectError(await s.http("PUT", "/creators/c-type", { rawBody: "{not json" }), 400, "validation_failed");
  });
  it("an upsert that changes nothing leaves updatedAt unchanged", async () => {
    const first = strict(
      strictCreators.Creator,
      await put("c-noop", { name: "N", email: "n@x.example" }),
      201,
    );
    await advance("1h");
    const same = strict(
      strictCreators.Creator,
      await put("c-noop", { name: " N ", email: "n@x.example", active: true }),
    );
    expect(same.updatedAt).toBe(first.updatedAt);
    const changed = strict(strictCreators.Creator, await put("c-noop", { handle: "@n" }));
    expect(Date.parse(changed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt) + 3_600_000);
    expect(changed.createdAt).toBe(first.createdAt);
  });
  it("GET an unknown creator is 404", async () => {
    expectError(await s.http("GET", "/creators/nobody-here"), 404, "not_found");
  });
});

describe("externalIds that need URL encoding round-trip", () => {
  const ids = [
    "a/b",
    "a//b/",
    "100%",
    "%41",
    "a#b",
    "what?x=1&y=2",
    "with space",
    "plus+sign",
    "Ünïcødé-名前-😀",
    "back\\slash",
    "...",
    "batch",
    "semi;colon",
    "quote\"'",
  ];
  it("through PUT and GET (raw HTTP and the API client)", async () => {
    const c = s.client();
    try {
      for (const id of ids) {
        const res = await put(id, { name: `Name ${id}` });
        expect(res.status, id).toBe(201);
        expect(strict(strictCreators.Creator, res, 201).externalId).toBe(id);
        expect((await get(id)).externalId).toBe(id);
        const viaClient = await getCreator(c, id);
        expect(viaClient.name).toBe(`Name ${id}`);
        const again = await putCreator(c, id, { handle: "@h" });
        expect(again.created).toBe(false);
        expect(again.creator.externalId).toBe(id);
      }
      const all = await listCreators(c, { pageSize: 200 });
      const listed = new Set(all.items.map((x) => x.externalId));
      for (const id of ids) expect(listed.has(id), id).toBe(true);
    } finally {
      await c.close();
    }
  });
  it('"." and ".." are addressable as %2E segments over raw HTTP', async () => {
    // WHATWG URL parsers (fetch, new URL) fold %2E segments away; node:http sends the path as is.
    const { request } = await import("node:http");
    const raw = (method: string, path: string, body?: unknown) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: s.sb.port,
            path: `/api/partner/v1${path}`,
            method,
            headers: { authorization: `Bearer ${s.writeKey}`, "content-type": "application/json" },
          },
          (res) => {
            let text = "";
            res.on("data", (c) => {
              text += c;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on("error", reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    for (const id of [".", ".."]) {
      const created = strict(
        strictCreators.Creator,
        await raw("PUT", `/creators/${enc(id)}`, { name: id }),
        201,
      );
      expect(created.externalId).toBe(id);
      expect(strict(strictCreators.Creator, await raw("GET", `/creators/${enc(id)}`)).name).toBe(id);
    }
  });
  it("ids differing only in case are different creators", async () => {
    strict(strictCreators.Creator, await put("CaseID", { name: "Upper" }), 201);
    strict(strictCreators.Creator, await put("caseid", { name: "Lower" }), 201);
    expect((await get("CaseID")).name).toBe("Upper");
    expect((await get("caseid")).name).toBe("Lower");
  });
});

describe("GET /creators filters", () => {
  const sb2 = useSandbox({ seed: "empty" });
  const list = async (q: string) =>
    strict(strictCreators.CreatorPage, await http(sb2.sb, "GET", `/creators${q}`)).items.map(
      (c) => c.externalId,
    );

  it("active filter, updatedSince inclusive, sorted by externalId", async () => {
    await http(sb2.sb, "PUT", "/creators/b-old", { body: { name: "Old" } });
    await http(sb2.sb, "PUT", "/creators/a-old-inactive", { body: { name: "Old", active: false } });
    await http(sb2.sb, "POST", "/advance", { control: true, body: { duration: "2h" } });
    const mid = strict(
      strictCreators.Creator,
      await http(sb2.sb, "PUT", "/creators/c-mid", { body: { name: "Mid", active: false } }),
      201,
    );
    await http(sb2.sb, "POST", "/advance", { control: true, body: { duration: "2h" } });
    await http(sb2.sb, "PUT", "/creators/d-new", { body: { name: "New" } });

    expect(await list("")).toEqual(["a-old-inactive", "b-old", "c-mid", "d-new"]);
    expect(await list("?active=true")).toEqual(["b-old", "d-new"]);
    expect(await list("?active=false")).toEqual(["a-old-inactive", "c-mid"]);
    // Inclusive: a creator updated exactly at updatedSince is included.
    expect(await list(`?updatedSince=${encodeURIComponent(mid.updatedAt)}`)).toEqual(["c-mid", "d-new"]);
    const after = new Date(Date.parse(mid.updatedAt) + 1000).toISOString().replace(".000Z", "Z");
    expect(await list(`?updatedSince=${encodeURIComponent(after)}`)).toEqual(["d-new"]);
    expect(await list(`?updatedSince=${encodeURIComponent(mid.updatedAt)}&active=false`)).toEqual(["c-mid"]);
    // Offsets are accepted.
    const offset = new Date(Date.parse(mid.updatedAt)).toISOString().slice(0, 19);
    const plus = `${offset.slice(0, 11)}${String((Number(offset.slice(11, 13)) + 2) % 24).padStart(2, "0")}${offset.slice(13)}+02:00`;
    if (Number(offset.slice(11, 13)) < 22)
      expect(await list(`?updatedSince=${encodeURIComponent(plus)}`)).toContain("c-mid");
    // A later update moves a creator into the window.
    await http(sb2.sb, "PUT", "/creators/b-old", { body: { name: "Old renamed" } });
    expect(await list(`?updatedSince=${encodeURIComponent(mid.updatedAt)}`)).toEqual([
      "b-old",
      "c-mid",
      "d-new",
    ]);
  });
  it("bad filter values are 400 keyed by the parameter", async () => {
    expectError(await http(sb2.sb, "GET", "/creators?active=yes"), 400, "validation_failed", ["active"]);
    expectError(await http(sb2.sb, "GET", "/creators?updatedSince=yesterday"), 400, "validation_failed", [
      "updatedSince",
    ]);
    expectError(
      await http(sb2.sb, "GET", "/creators?updatedSince=2024-13-45T00:00:00Z"),
      400,
      "validation_failed",
      ["updatedSince"],
    );
    expectError(
      await http(sb2.sb, "GET", "/creators?updatedSince=2024-02-30T00:00:00Z"),
      400,
      "validation_failed",
      ["updatedSince"],
    );
    expect((await http(sb2.sb, "GET", "/creators?updatedSince=2024-02-29T00:00:00Z")).status).toBe(200);
  });
});
