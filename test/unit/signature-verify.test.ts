import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  buildSignatureHeader,
  parseSignatureHeader,
  SignatureHeaderError,
  sign,
  verifySignature,
} from "../../src/webhooks/signature.js";

const SECRET = "whsec_test_secret_ünïcode";
const OTHER = "whsec_other";
const BODY = Buffer.from('{"id":"e1","type":"code.issued","data":{"name":"Zoë"}}', "utf8");
const NOW = 1_800_000_000;

function header(t: number, ...secrets: string[]) {
  return buildSignatureHeader(
    t,
    secrets.map((s) => sign(s, t, BODY)),
  );
}

describe("sign", () => {
  it('is HMAC-SHA256 hex over t + "." + raw body, keyed with the whole secret as UTF-8 (checked with openssl)', () => {
    const input = Buffer.concat([Buffer.from(`${NOW}.`), BODY]);
    const out = execFileSync("openssl", ["dgst", "-sha256", "-hmac", SECRET], { input }).toString();
    const expected = /([0-9a-f]{64})\s*$/.exec(out.trim())![1];
    const v1 = sign(SECRET, NOW, BODY);
    expect(v1).toBe(expected);
    expect(v1).toMatch(/^[0-9a-f]{64}$/);
    // A string body signs the same as its UTF-8 bytes.
    expect(sign(SECRET, NOW, BODY.toString("utf8"))).toBe(v1);
  });

  it("builds t=...,v1=... with one or two v1 values", () => {
    expect(buildSignatureHeader(5, ["aa"])).toBe("t=5,v1=aa");
    expect(buildSignatureHeader(5, ["aa", "bb"])).toBe("t=5,v1=aa,v1=bb");
  });
});

describe("parseSignatureHeader", () => {
  it("parses t and every v1 and ignores other schemes and spaces", () => {
    expect(parseSignatureHeader("t=12, v1=ab ,v0=zz,v1=cd")).toEqual({ t: 12, v1: ["ab", "cd"] });
  });
  it.each([
    [undefined, /missing/],
    ["", /missing/],
    ["v1=abc", /no t=/],
    ["t=123", /no v1=/],
    ["t=123,v1=", /empty v1=/],
    ["t=abc,v1=ab", /not unix seconds/],
    ["t=1,t=2,v1=ab", /twice/],
    ["garbage", /not key=value/],
    ["t=1,=x,v1=ab", /not key=value/],
  ])("refuses %j with a clear message", (h, msg) => {
    expect(() => parseSignatureHeader(h as string | undefined)).toThrow(SignatureHeaderError);
    expect(() => parseSignatureHeader(h as string | undefined)).toThrow(msg);
  });
});

describe("verifySignature", () => {
  const base = { rawBody: BODY, secrets: [SECRET], nowSeconds: NOW };

  it("accepts a correct signature", () => {
    expect(verifySignature({ ...base, header: header(NOW, SECRET) })).toEqual({ ok: true, t: NOW });
  });

  it("refuses a wrong secret", () => {
    const r = verifySignature({ ...base, header: header(NOW, OTHER) });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/no v1 signature matches/);
  });

  it("accepts exactly 300 s of skew both ways and refuses 301 (stale and future)", () => {
    expect(verifySignature({ ...base, header: header(NOW - 300, SECRET) }).ok).toBe(true);
    expect(verifySignature({ ...base, header: header(NOW + 300, SECRET) }).ok).toBe(true);
    const stale = verifySignature({ ...base, header: header(NOW - 301, SECRET) });
    expect(stale).toEqual({ ok: false, reason: expect.stringMatching(/301 seconds old/) });
    const future = verifySignature({ ...base, header: header(NOW + 301, SECRET) });
    expect(future).toEqual({ ok: false, reason: expect.stringMatching(/301 seconds in the future/) });
  });

  it("honours a custom tolerance", () => {
    expect(verifySignature({ ...base, header: header(NOW - 20, SECRET), toleranceSeconds: 10 }).ok).toBe(
      false,
    );
  });

  it("refuses a missing header, missing or empty v1 and a malformed header", () => {
    for (const h of [
      undefined,
      "",
      `t=${NOW}`,
      `t=${NOW},v1=`,
      "nonsense",
      `v1=${sign(SECRET, NOW, BODY)}`,
    ]) {
      const r = verifySignature({ ...base, header: h });
      expect(r.ok, String(h)).toBe(false);
    }
  });

  it("refuses a body changed by one byte", () => {
    const changed = Buffer.from(BODY);
    changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
    expect(verifySignature({ ...base, rawBody: changed, header: header(NOW, SECRET) }).ok).toBe(false);
  });

  it("verifies over raw bytes, not re-serialized JSON", () => {
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 2));
    expect(verifySignature({ ...base, rawBody: reserialized, header: header(NOW, SECRET) }).ok).toBe(false);
  });

  it("during rotation accepts a match with either v1 value and either secret", () => {
    const both = header(NOW, SECRET, OTHER);
    expect(verifySignature({ ...base, header: both, secrets: [SECRET] }).ok).toBe(true);
    expect(verifySignature({ ...base, header: both, secrets: [OTHER] }).ok).toBe(true);
    // The receiver may hold both secrets while only the new one signs.
    expect(verifySignature({ ...base, header: header(NOW, OTHER), secrets: [SECRET, OTHER] }).ok).toBe(true);
    expect(verifySignature({ ...base, header: both, secrets: ["whsec_third"] }).ok).toBe(false);
  });

  it("refuses when no secret is given, and a v1 of the wrong length", () => {
    expect(verifySignature({ ...base, header: header(NOW, SECRET), secrets: [] }).ok).toBe(false);
    expect(verifySignature({ ...base, header: `t=${NOW},v1=abcd` }).ok).toBe(false);
    // Uppercase hex is not the spec's lowercase form.
    expect(
      verifySignature({ ...base, header: `t=${NOW},v1=${sign(SECRET, NOW, BODY).toUpperCase()}` }).ok,
    ).toBe(false);
  });
});
