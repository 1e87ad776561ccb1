// Certificate problems are configuration, not weather: a certificate that does not verify ends the
// command at once with exit 4, the reason in words and the fix, after exactly one connection (no
// retries). Real HTTPS servers on 127.0.0.1 with certificates made by openssl at test time, in front
// of the sandbox; the built CLI is spawned, as NODE_EXTRA_CA_CERTS is read only when Node starts.
import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useSandbox } from "../helpers/harness.js";
import { makeCerts, type Pair, type TestCerts, type TlsFront, tlsFront } from "./tls-certs.js";

const box = useSandbox();
let certs: TestCerts;
const fronts: TlsFront[] = [];

beforeAll(() => {
  certs = makeCerts();
});
afterAll(() => rmSync(certs.dir, { recursive: true, force: true }));
afterEach(async () => {
  while (fronts.length) await fronts.pop()!.close();
});

/** No proxy from the outer environment, and a retry budget that would show retries if any ran. */
const NO_PROXY_ENV = { HTTPS_PROXY: "", https_proxy: "", HTTP_PROXY: "", http_proxy: "" };

async function meAgainst(pair: Pair, env: NodeJS.ProcessEnv = {}) {
  const front = await tlsFront(pair, box.url);
  fronts.push(front);
  const r = await box.cli(["me", "--verbose"], {
    env: { ...NO_PROXY_ENV, PARTNER_BASE_URL: front.url, PARTNER_RETRY_DEADLINE_MS: "30000", ...env },
  });
  return { r, front };
}

/** Exit 4, one connection, one attempt in the trace, no retry, no key in the output. */
function refusedOnce(r: Awaited<ReturnType<typeof meAgainst>>, code: string): string {
  expect(r.r.exitCode, r.r.stderr).toBe(4);
  expect(r.front.connections).toBe(1);
  expect(r.r.stderr.match(/^> GET /gm)).toHaveLength(1);
  expect(r.r.stderr).not.toMatch(/retrying/);
  expect(r.r.stderr).toContain(`(${code})`);
  expect(r.r.stderr).toContain(`The TLS certificate of ${r.front.url} (PARTNER_BASE_URL) was refused`);
  expect(r.r.stderr).toContain("nothing was sent and it was not retried");
  expect(r.r.stderr).not.toContain(box.writeKey);
  return r.r.stderr;
}

describe("a certificate that does not verify: exit 4 at once", () => {
  it("self-signed: says so and names NODE_EXTRA_CA_CERTS", async () => {
    const err = refusedOnce(await meAgainst(certs.selfSigned), "DEPTH_ZERO_SELF_SIGNED_CERT");
    expect(err).toContain("it is self-signed");
    expect(err).toContain("NODE_EXTRA_CA_CERTS=/path/ca.pem");
    expect(err).toContain("no option to skip certificate checks");
  });

  it("signed by a CA this machine does not trust", async () => {
    const err = refusedOnce(await meAgainst(certs.signed), "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    expect(err).toContain("signed by a CA that is not trusted here");
    expect(err).toContain("NODE_EXTRA_CA_CERTS=/path/ca.pem");
  });

  it("expired (its CA trusted): says it expired and who must fix it", async () => {
    const err = refusedOnce(
      await meAgainst(certs.expired, { NODE_EXTRA_CA_CERTS: certs.caFile }),
      "CERT_HAS_EXPIRED",
    );
    expect(err).toContain("it has expired");
    expect(err).toContain("must be replaced by whoever runs 127.0.0.1");
    expect(err).toContain("If this computer's clock is wrong");
  });

  it("for another host name (its CA trusted): names the names it holds", async () => {
    const err = refusedOnce(
      await meAgainst(certs.wrongName, { NODE_EXTRA_CA_CERTS: certs.caFile }),
      "ERR_TLS_CERT_ALTNAME_INVALID",
    );
    expect(err).toContain("it is for partner.example.com, not 127.0.0.1");
    expect(err).toContain(
      "If partner.example.com is the same service, use that name in the base URL. Set PARTNER_BASE_URL to the right address",
    );
  });

  it("--json: one error object with exit code 4 and code config_error", async () => {
    const front = await tlsFront(certs.selfSigned, box.url);
    fronts.push(front);
    const r = await box.cli(["me", "--json"], { env: { ...NO_PROXY_ENV, PARTNER_BASE_URL: front.url } });
    expect(r.exitCode).toBe(4);
    const e = JSON.parse(r.stderr.trim().split("\n").pop()!);
    expect(e.exitCode).toBe(4);
    expect(e.error.code).toBe("config_error");
    expect(e.error.message).toContain("DEPTH_ZERO_SELF_SIGNED_CERT");
    expect(front.connections).toBe(1);
  });
});

describe("the fix works", () => {
  it("NODE_EXTRA_CA_CERTS=ca.pem: a certificate of a private CA is accepted", async () => {
    const { r, front } = await meAgainst(certs.signed, { NODE_EXTRA_CA_CERTS: certs.caFile });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("Northwind Creators");
    expect(front.connections).toBe(1);
  });

  it("NODE_EXTRA_CA_CERTS=server.pem: a self-signed server certificate is accepted", async () => {
    const { r } = await meAgainst(certs.selfSigned, { NODE_EXTRA_CA_CERTS: certs.selfSignedFile });
    expect(r.exitCode, r.stderr).toBe(0);
  });
});
