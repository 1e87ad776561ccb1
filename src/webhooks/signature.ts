// Webhook signatures (spec: Delivery, Signature verification rules). Used by the sandbox to sign
// deliveries and by the CLI (`webhooks verify`, `webhooks listen`) to check them.
//   Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]
//   v1 = lowercase hex HMAC-SHA256, keyed with the whole secret string as UTF-8, over `${t}.${rawBody}`.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { SIGNING_SECRET_PREFIX } from "../spec/webhooks.js";

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new signing secret as the service makes them: `whsec_` and 24 random bytes (base64url). */
export function newSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(24).toString("base64url");
}

/** The v1 signature (64 lowercase hex characters) of `rawBody` sent at unix second `t`. */
export function sign(secret: string, t: number, rawBody: Buffer | string): string {
  const h = createHmac("sha256", Buffer.from(secret, "utf8"));
  h.update(`${t}.`, "utf8");
  h.update(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody);
  return h.digest("hex");
}

export function buildSignatureHeader(t: number, v1: readonly string[]): string {
  return [`t=${t}`, ...v1.map((s) => `v1=${s}`)].join(",");
}

export interface ParsedSignature {
  t: number;
  v1: string[];
}

export class SignatureHeaderError extends Error {}

/**
 * Parses `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`. Unknown schemes (v0=, v2=...) are ignored.
 * Throws SignatureHeaderError with a clear message when the header is malformed, lacks t, or has
 * no non-empty v1.
 */
export function parseSignatureHeader(header: string | undefined | null): ParsedSignature {
  if (header === undefined || header === null || header.trim() === "")
    throw new SignatureHeaderError("the Service-Signature header is missing or empty");
  let t: number | undefined;
  const v1: string[] = [];
  let emptyV1 = false;
  for (const rawPart of header.split(",")) {
    const part = rawPart.trim();
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0)
      throw new SignatureHeaderError(`malformed Service-Signature header: "${part}" is not key=value`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") {
      if (t !== undefined)
        throw new SignatureHeaderError("malformed Service-Signature header: t appears twice");
      if (!/^\d{1,12}$/.test(value))
        throw new SignatureHeaderError(
          `malformed Service-Signature header: t="${value}" is not unix seconds`,
        );
      t = Number(value);
    } else if (key === "v1") {
      if (value === "") emptyV1 = true;
      else v1.push(value);
    }
  }
  if (t === undefined) throw new SignatureHeaderError("the Service-Signature header has no t= timestamp");
  if (v1.length === 0)
    throw new SignatureHeaderError(
      emptyV1
        ? "the Service-Signature header has an empty v1= signature"
        : "the Service-Signature header has no v1= signature",
    );
  return { t, v1 };
}

export type VerifyResult = { ok: true; t: number } | { ok: false; reason: string };

export interface VerifyInput {
  header: string | undefined | null;
  /** The body bytes exactly as received (not re-serialized JSON). */
  rawBody: Buffer;
  /** Secrets to try (the current one, plus the previous one during a rotation overlap). */
  secrets: readonly string[];
  /** The receiver's clock, unix seconds. */
  nowSeconds: number;
  toleranceSeconds?: number;
}

/** Verifies a delivery: header shape, timestamp within tolerance, and a constant-time v1 match. */
export function verifySignature(input: VerifyInput): VerifyResult {
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  let parsed: ParsedSignature;
  try {
    parsed = parseSignatureHeader(input.header);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  if (input.secrets.length === 0) return { ok: false, reason: "no signing secret to verify with" };
  const skew = input.nowSeconds - parsed.t;
  if (Math.abs(skew) > tolerance) {
    return {
      ok: false,
      reason:
        skew > 0
          ? `the signature timestamp is ${skew} seconds old (tolerance ${tolerance} s)`
          : `the signature timestamp is ${-skew} seconds in the future (tolerance ${tolerance} s)`,
    };
  }
  let matched = false;
  for (const secret of input.secrets) {
    const expected = Buffer.from(sign(secret, parsed.t, input.rawBody), "utf8");
    for (const candidate of parsed.v1) {
      const got = Buffer.from(candidate, "utf8");
      // Compare every pair in constant time; lengths differ only for malformed values.
      if (got.length === expected.length && timingSafeEqual(got, expected)) matched = true;
    }
  }
  return matched
    ? { ok: true, t: parsed.t }
    : { ok: false, reason: "no v1 signature matches the body with the given secret" };
}
