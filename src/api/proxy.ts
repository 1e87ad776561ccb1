// Proxies from the environment, as HTTP tools honour them: HTTPS_PROXY, HTTP_PROXY and NO_PROXY, in
// upper or lower case. The requests themselves go through undici's EnvHttpProxyAgent (client.ts),
// which is given the values read here (from the Context's environment, not process.env) and makes
// the decision; this module reads the variables with undici's precedence, checks the proxy URLs
// (so a bad one is named with its variable), redacts them for messages, and says which proxy a
// request to an origin goes through, for --verbose and for errors. No undici import here: reading
// the environment must not load the HTTP stack (test/api/startup-imports.test.ts).
import { ConfigError } from "../errors.js";

/** A proxy URL and the variable it came from ("HTTPS_PROXY", "http_proxy", ...). */
export interface ProxySource {
  url: string;
  variable: string;
}

export interface ProxySettings {
  /** For http:// targets: http_proxy, else HTTP_PROXY. */
  http: ProxySource | undefined;
  /** For https:// targets: https_proxy, else HTTPS_PROXY (else the http proxy, as undici does). */
  https: ProxySource | undefined;
  /** no_proxy, else NO_PROXY ("" when neither is set). */
  noProxy: string;
  /** Which variable noProxy came from, for messages. */
  noProxyVariable: string | undefined;
}

/**
 * undici's precedence (EnvHttpProxyAgent): the lower-case name first, then the upper-case one; a
 * lower-case variable that is set but empty hides the upper-case one, and an empty value means no
 * proxy.
 */
function pick(env: NodeJS.ProcessEnv, name: string): { value: string; variable: string } | undefined {
  const lower = name.toLowerCase();
  if (env[lower] !== undefined) return { value: env[lower]!, variable: lower };
  if (env[name] !== undefined) return { value: env[name]!, variable: name };
  return undefined;
}

function proxySource(env: NodeJS.ProcessEnv, name: string): ProxySource | undefined {
  const found = pick(env, name);
  const value = found?.value.trim();
  if (!found || !value) return undefined;
  let u: URL | undefined;
  try {
    u = new URL(value);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname) {
    throw new ConfigError(
      `${found.variable} is set to "${redactProxy(value)}", which is not a proxy URL partner-cli can use.`,
      `Write it with its scheme and port, like ${found.variable}=http://proxy.example.com:3128 (http:// or https://; user and password, if the proxy needs them, as http://user:password@proxy.example.com:3128), or unset it.`,
    );
  }
  return { url: value, variable: found.variable };
}

/** The proxy settings of an environment; a proxy URL that cannot be used is a ConfigError (exit 4). */
export function proxyFromEnv(env: NodeJS.ProcessEnv): ProxySettings {
  const http = proxySource(env, "HTTP_PROXY");
  const https = proxySource(env, "HTTPS_PROXY") ?? http;
  const no = pick(env, "NO_PROXY");
  return { http, https, noProxy: no?.value ?? "", noProxyVariable: no?.variable };
}

/** A proxy URL for messages: a password in it shown as ****, so http://user:****@proxy:3128. */
export function redactProxy(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) {
      u.password = "****";
      return u.href.replace(/\/$/, "");
    }
    return url;
  } catch {
    // Not a URL: hide whatever sits between "://" (or the start) and the last "@".
    return url.replace(/^((?:[a-z][\w+.-]*:\/\/)?[^:@/]*:)[^@/]*@/i, "$1****@");
  }
}

/**
 * Whether NO_PROXY exempts a host: the same rule as undici's EnvHttpProxyAgent (which makes the
 * actual decision; this answer is for --verbose and messages, and test/api/proxy-env.test.ts checks
 * the two agree through a real proxy). Entries are separated by commas or blanks; "*" alone exempts
 * everything; an entry matches the host itself and its subdomains, a leading "." or "*." being
 * ignored; an entry with ":port" matches that port only (80/443 when the URL names none); IP
 * addresses match as written (no ranges).
 */
export function noProxyMatches(noProxy: string, target: URL): boolean {
  if (noProxy === "*") return true;
  const host = target.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(target.port, 10) || (target.protocol === "https:" ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, "").toLowerCase();
    if (m && Number.parseInt(m[2]!, 10) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy a request to `origin` goes through, or undefined for a direct connection. */
export function proxyFor(settings: ProxySettings | undefined, origin: string): ProxySource | undefined {
  if (!settings) return undefined;
  const target = new URL(origin);
  const proxy = target.protocol === "https:" ? settings.https : settings.http;
  if (!proxy || noProxyMatches(settings.noProxy, target)) return undefined;
  return proxy;
}

/** One --verbose line: which proxy requests to `origin` use, and why. Undefined when no proxy is set. */
export function proxyTraceLine(settings: ProxySettings | undefined, origin: string): string | undefined {
  if (!settings || (!settings.http && !settings.https)) return undefined;
  const proxy = proxyFor(settings, origin);
  if (proxy) return `  via proxy ${redactProxy(proxy.url)} (from ${proxy.variable})`;
  const scheme = new URL(origin).protocol === "https:" ? "https" : "http";
  const set = scheme === "https" ? settings.https : settings.http;
  if (!set) return `  no proxy for ${scheme}:// (no ${scheme.toUpperCase()}_PROXY set); connecting directly`;
  return `  no proxy: ${settings.noProxyVariable}=${settings.noProxy} exempts ${new URL(origin).host}; connecting directly`;
}
