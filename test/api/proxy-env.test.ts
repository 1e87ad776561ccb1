// Proxies from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY and the lower-case forms), as
// undici's EnvHttpProxyAgent applies them: through a real forward proxy on 127.0.0.1 that counts
// what it carries (CONNECT for https://, plain forwarding for http://). Host names under .test
// resolve only at the proxy, so a request to one that succeeded went through it; one that bypassed
// it fails to resolve.
import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import { getMe } from "../../src/api/me.js";
import { noProxyMatches, proxyFor, proxyFromEnv, redactProxy } from "../../src/api/proxy.js";
import { ConfigError, type NetworkError, ProxyError } from "../../src/errors.js";
import { exitCodeFor } from "../../src/main.js";
import { useSandbox } from "../helpers/harness.js";
import { type ForwardProxy, forwardProxy } from "./forward-proxy.js";
import { closedPort } from "./misbehave.js";
import { makeCerts, type TestCerts, type TlsFront, tlsFront } from "./tls-certs.js";

const box = useSandbox();
let proxy: ForwardProxy;
let authProxy: ForwardProxy;
let certs: TestCerts;
let front: TlsFront;
const PASSWORD = "s3cret-pr0xy";

/**
 * For spawned runs (which inherit this process's environment): every proxy variable set empty, so
 * none from outside leaks in. A lower-case variable that is set, even empty, hides its upper-case
 * twin (undici's order, and curl's), so spawned runs set the lower-case names. In-process runs get
 * only the environment given.
 */
const CLEAR = {
  HTTPS_PROXY: "",
  https_proxy: "",
  HTTP_PROXY: "",
  http_proxy: "",
  NO_PROXY: "",
  no_proxy: "",
};

beforeAll(async () => {
  const hosts = { "partner.corp.test": "127.0.0.1", "corp.test": "127.0.0.1" };
  proxy = await forwardProxy({ hosts });
  authProxy = await forwardProxy({ hosts, auth: { user: "alice", password: PASSWORD } });
  certs = makeCerts();
  front = await tlsFront(certs.signed, box.url);
});
afterAll(async () => {
  await proxy.close();
  await authProxy.close();
  await front.close();
  rmSync(certs.dir, { recursive: true, force: true });
});
afterEach(() => {
  proxy.reset();
  authProxy.reset();
});

const port = () => new URL(box.url).port;
const withCreds = (p: ForwardProxy, user = "alice", password = PASSWORD) =>
  `http://${user}:${encodeURIComponent(password)}@127.0.0.1:${p.port}`;

describe("http:// targets: plain forwarding through HTTP_PROXY", () => {
  it("the request goes through the proxy; --verbose names it", async () => {
    const r = await box.run(["me", "--verbose"], { env: { HTTP_PROXY: proxy.url } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toEqual([`GET ${box.url}/api/partner/v1/me`]);
    expect(r.stderr).toContain(`via proxy ${proxy.url} (from HTTP_PROXY)`);
  });

  it("a host name only the proxy knows works: nothing went around it", async () => {
    const r = await box.run(["me"], {
      env: { http_proxy: proxy.url, PARTNER_BASE_URL: `http://partner.corp.test:${port()}` },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toEqual([`GET http://partner.corp.test:${port()}/api/partner/v1/me`]);
  });

  it("http_proxy wins over HTTP_PROXY (undici's order), and HTTPS_PROXY is not used for http://", async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const r = await box.run(["me"], {
      env: { HTTP_PROXY: closed, http_proxy: proxy.url, HTTPS_PROXY: closed },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(1);
  });

  it("the embedded sandbox is never proxied", async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const r = await box.run(["me", "--sandbox", "--verbose"], {
      env: { HTTP_PROXY: closed, HTTPS_PROXY: closed },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("proxy");
  });
});

describe("https:// targets: CONNECT through HTTPS_PROXY (spawned: the test CA via NODE_EXTRA_CA_CERTS)", () => {
  it("tunnels through the proxy with its user and password; --verbose redacts the password", async () => {
    const r = await box.cli(["me", "--verbose"], {
      env: {
        ...CLEAR,
        https_proxy: withCreds(authProxy),
        PARTNER_BASE_URL: front.url,
        NODE_EXTRA_CA_CERTS: certs.caFile,
      },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("Northwind Creators");
    expect(authProxy.seen).toEqual([`CONNECT ${new URL(front.url).host}`]);
    expect(r.stderr).toContain(`via proxy http://alice:****@127.0.0.1:${authProxy.port} (from https_proxy)`);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stdout + r.stderr).not.toContain(box.writeKey);
  });

  it("407 without credentials: exit 4 at once, naming the proxy and its variable, and the fix", async () => {
    const r = await box.cli(["me"], {
      env: {
        ...CLEAR,
        https_proxy: authProxy.url,
        PARTNER_BASE_URL: front.url,
        PARTNER_RETRY_DEADLINE_MS: "30000",
      },
    });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `The proxy ${authProxy.url} (from https_proxy) answered 407 Proxy Authentication Required: the proxy URL has no user and password.`,
    );
    expect(r.stderr).toContain(`https_proxy=http://USER:PASSWORD@127.0.0.1:${authProxy.port}`);
    expect(r.stderr).toContain("NO_PROXY");
    expect(authProxy.seen).toEqual([`CONNECT ${new URL(front.url).host}`]);
  });
});

describe("a proxy that cannot be used: exit 4 at once, not 'host not found after 8 attempts'", () => {
  it("407 with a wrong password (plain forwarding): the password never shown", async () => {
    const r = await box.run(["me"], {
      env: {
        HTTP_PROXY: withCreds(authProxy, "alice", "wrong-Passw0rd"),
        PARTNER_RETRY_DEADLINE_MS: "30000",
      },
    });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `The proxy http://alice:****@127.0.0.1:${authProxy.port} (from HTTP_PROXY) answered 407 Proxy Authentication Required: the user and password in the proxy URL were not accepted.`,
    );
    expect(r.stderr).not.toContain("wrong-Passw0rd");
    expect(authProxy.seen).toHaveLength(1);
  });

  it("connection refused: names the proxy and its variable; one attempt", async () => {
    const dead = await closedPort();
    const r = await box.run(["me", "--verbose"], {
      env: { HTTP_PROXY: `http://bob:pw-123@127.0.0.1:${dead}`, PARTNER_RETRY_DEADLINE_MS: "30000" },
    });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `Could not reach the proxy http://bob:****@127.0.0.1:${dead} (from HTTP_PROXY): connection refused (ECONNREFUSED).`,
    );
    expect(r.stderr).toContain("Check HTTP_PROXY: the proxy's host and port, and that it runs.");
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(1);
    expect(r.stderr).not.toContain("pw-123");
  });

  it("a proxy variable that is not a URL: exit 4 naming the variable, before any request", async () => {
    const r = await box.run(["me"], { env: { HTTPS_PROXY: "proxy.corp.test:3128" } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('HTTPS_PROXY is set to "proxy.corp.test:3128", which is not a proxy URL');
  });
});

describe("NO_PROXY, as undici reads it", () => {
  /** One request through a client built from `env`; whether the proxy carried it, and what it said. */
  async function attempt(env: NodeJS.ProcessEnv, baseUrl: string) {
    const settings = proxyFromEnv({ HTTP_PROXY: proxy.url, ...env });
    const c = new ApiClient({ baseUrl, apiKey: box.writeKey, proxy: settings, retry: { maxAttempts: 1 } });
    proxy.reset();
    let error: unknown;
    try {
      await getMe(c);
    } catch (e) {
      error = e;
    } finally {
      await c.close();
    }
    return { proxied: proxy.seen.length === 1, predicted: proxyFor(settings, baseUrl) !== undefined, error };
  }

  const cases: [string, string, boolean][] = [
    // [NO_PROXY, host of the base URL, proxied]
    ["", "partner.corp.test", true],
    ["corp.test", "partner.corp.test", false],
    [".corp.test", "partner.corp.test", false],
    ["*.corp.test", "partner.corp.test", false],
    [".corp.test", "corp.test", false],
    ["rp.test", "partner.corp.test", true],
    ["other.test, corp.test", "partner.corp.test", false],
    ["other.test corp.test", "partner.corp.test", false],
    ["PARTNER.CORP.TEST", "partner.corp.test", false],
    ["partner.corp.test:PORT", "partner.corp.test", false],
    ["partner.corp.test:1", "partner.corp.test", true],
    ["127.0.0.1", "127.0.0.1", false],
    ["127.0.0.2", "127.0.0.1", true],
    ["*", "partner.corp.test", false],
  ];
  for (const [noProxy, host, proxied] of cases) {
    it(`NO_PROXY="${noProxy}" and ${host}: ${proxied ? "through the proxy" : "direct"}`, async () => {
      const r = await attempt({ NO_PROXY: noProxy.replace("PORT", port()) }, `http://${host}:${port()}`);
      expect(r.proxied).toBe(proxied);
      expect(r.predicted).toBe(proxied);
      // Through the proxy, or direct to 127.0.0.1, it works; direct to a .test name it cannot resolve.
      if (proxied || host === "127.0.0.1") expect(r.error).toBeUndefined();
      else expect((r.error as NetworkError).message).toContain("host not found (ENOTFOUND)");
    });
  }

  it("no_proxy wins over NO_PROXY, even empty (undici's order)", async () => {
    const r = await attempt({ no_proxy: "", NO_PROXY: "corp.test" }, `http://partner.corp.test:${port()}`);
    expect(r.proxied).toBe(true);
    expect(r.predicted).toBe(true);
  });

  it("--verbose says when NO_PROXY exempts the host", async () => {
    const r = await box.run(["me", "--verbose"], {
      env: { HTTP_PROXY: proxy.url, no_proxy: "localhost,127.0.0.1" },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(0);
    expect(r.stderr).toContain(
      `no proxy: no_proxy=localhost,127.0.0.1 exempts 127.0.0.1:${port()}; connecting directly`,
    );
  });
});

describe("reading the variables", () => {
  it("a proxy URL without a scheme is a ConfigError naming its variable", () => {
    let err: unknown;
    try {
      proxyFromEnv({ HTTPS_PROXY: "proxy.corp.test:3128" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(exitCodeFor(err)).toBe(4);
    expect((err as ConfigError).message).toContain('HTTPS_PROXY is set to "proxy.corp.test:3128"');
    expect((err as ConfigError).hint).toContain("HTTPS_PROXY=http://proxy.example.com:3128");
  });

  it("HTTPS_PROXY falls back to the http proxy, as undici does", () => {
    const s = proxyFromEnv({ HTTP_PROXY: "http://p:1" });
    expect(s.https).toEqual({ url: "http://p:1", variable: "HTTP_PROXY" });
  });

  it("redacts the password only", () => {
    expect(redactProxy("http://user:pa%40ss@proxy:3128")).toBe("http://user:****@proxy:3128");
    expect(redactProxy("http://proxy:3128")).toBe("http://proxy:3128");
    expect(redactProxy("http://user@proxy:3128/")).toBe("http://user@proxy:3128/");
  });

  it("IPv6 and default ports in NO_PROXY", () => {
    expect(noProxyMatches("[::1]", new URL("http://[::1]:8080"))).toBe(true);
    expect(noProxyMatches("example.com:443", new URL("https://api.example.com"))).toBe(true);
    expect(noProxyMatches("example.com:443", new URL("http://api.example.com"))).toBe(false);
  });

  it("ProxyError maps to exit 4", () => {
    expect(exitCodeFor(new ProxyError("x"))).toBe(4);
  });
});
