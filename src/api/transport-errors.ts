// Failures below HTTP that are configuration, not weather: a TLS certificate that does not verify,
// and a proxy that cannot be used. Neither is retried (another attempt meets the same certificate or
// the same proxy); each becomes an error that says what is wrong, in words, and the fix.
import { CertificateError, ProxyError } from "../errors.js";
import { type ProxySource, redactProxy } from "./proxy.js";

/** Certificates that no trusted CA vouches for: the fix is NODE_EXTRA_CA_CERTS (or the server's chain). */
const UNTRUSTED: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "it is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "its chain ends in a self-signed CA that is not trusted here",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "it is signed by a CA that is not trusted here",
  UNABLE_TO_GET_ISSUER_CERT: "it is signed by a CA that is not trusted here",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "it is signed by a CA that is not trusted here (or the server does not send its intermediate certificate)",
  CERT_UNTRUSTED: "it is not trusted for this use",
  INVALID_CA: "one of the CA certificates in its chain is not a valid CA",
  CERT_CHAIN_TOO_LONG: "its chain is longer than allowed",
  PATH_LENGTH_EXCEEDED: "its chain is longer than a CA allows",
  INVALID_PURPOSE: "it is not meant for a TLS server",
  CERT_REJECTED: "its CA is marked as not trusted for this use",
};

/** Certificates that are trusted but not valid now, or broken: the fix is on the server (or the clock). */
const INVALID: Record<string, string> = {
  CERT_HAS_EXPIRED: "it has expired",
  CERT_NOT_YET_VALID: "it is not valid yet",
  CERT_REVOKED: "it has been revoked",
  CERT_SIGNATURE_FAILURE: "its signature does not verify",
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: "its signature cannot be read",
  UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY: "its issuer's public key cannot be read",
  ERROR_IN_CERT_NOT_BEFORE_FIELD: "its start date cannot be read",
  ERROR_IN_CERT_NOT_AFTER_FIELD: "its end date cannot be read",
  HOSTNAME_MISMATCH: "it is for another host name",
  ERR_TLS_CERT_ALTNAME_INVALID: "it is for another host name",
};

/** Whether a Node error code is a certificate that does not verify. */
export function isCertificateCode(code: string | undefined): boolean {
  return code !== undefined && (code in UNTRUSTED || code in INVALID);
}

interface TlsFailure {
  code?: string | undefined;
  /** ERR_TLS_CERT_ALTNAME_INVALID: Node's reason and the peer's certificate. */
  reason?: string | undefined;
  cert?: { subjectaltname?: string; subject?: { CN?: string | string[] } } | undefined;
}

/** The names a certificate holds (its subject alternative names, else its common name). */
function certNames(err: TlsFailure): string[] {
  const san = err.cert?.subjectaltname;
  if (san) return san.split(/,\s*/).map((n) => n.replace(/^(DNS|IP Address):/, ""));
  const cn = err.cert?.subject?.CN;
  return cn ? ([] as string[]).concat(cn) : [];
}

/**
 * A certificate that does not verify, for `origin` (the base URL's). `where`: the base URL and its
 * source for messages; `fix`: how to change the base URL where it came from; `proxy`: the proxy in
 * use, when its own certificate might be the one refused (an https:// proxy).
 */
export function certificateError(
  err: TlsFailure,
  origin: string,
  where: string,
  fix: string,
  proxy: ProxySource | undefined,
): CertificateError {
  const code = err.code ?? "";
  const host = new URL(origin).hostname;
  const viaTlsProxy =
    proxy && new URL(proxy.url).protocol === "https:"
      ? ` (or of the https proxy ${redactProxy(proxy.url)} from ${proxy.variable})`
      : "";
  const head = `The TLS certificate of ${where}${viaTlsProxy} was refused`;
  const tail = "; nothing was sent and it was not retried.";
  const never = "partner-cli has no option to skip certificate checks.";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID" || code === "HOSTNAME_MISMATCH") {
    const names = certNames(err);
    const holds = names.length ? `it is for ${names.join(", ")}, not ${host}` : `it is not for ${host}`;
    return new CertificateError(
      `${head}: ${holds} (${code})${tail}`,
      `${names.length ? `If ${names.join(" or ")} is the same service, use that name in the base URL. ` : ""}${fix} Otherwise the certificate must be reissued by whoever runs ${host} to include that name. ${never}`,
    );
  }
  if (code in UNTRUSTED) {
    return new CertificateError(
      `${head}: ${UNTRUSTED[code]} (${code})${tail}`,
      `If ${host} uses a private or corporate CA (or a proxy on this network inspects TLS), give Node that CA's certificate in a PEM file where partner-cli runs: NODE_EXTRA_CA_CERTS=/path/ca.pem (a self-signed server certificate can be given the same way). If you expected a public certificate, something may be intercepting the connection: check the base URL and the network. ${never}`,
    );
  }
  const clock =
    code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID"
      ? ` If this computer's clock is wrong (it says ${new Date().toISOString()}), correct it.`
      : "";
  return new CertificateError(
    `${head}: ${INVALID[code] ?? "it does not verify"} (${code})${tail}`,
    `The certificate must be replaced by whoever runs ${host}.${clock} ${never}`,
  );
}

/** Connect-stage codes that, behind a proxy, mean the proxy itself is not there. */
const PROXY_UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/** The status of a proxy's refusal, from undici's errors (CONNECT for https, forwarding for http). */
export function proxyRefusalStatus(message: string): number | undefined {
  const m =
    /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/.exec(message) ??
    /^Proxy Authentication Required \((407)\)/.exec(message);
  return m ? Number(m[1]) : undefined;
}

/**
 * The error for a request sent through `proxy` that failed at the proxy: it asked for credentials
 * (407), refused the destination (403), or could not be reached. Undefined for other failures,
 * which stay network failures (retried).
 */
export function proxyError(
  err: { code?: string | undefined; message: string },
  status: number | undefined,
  proxy: ProxySource,
  origin: string,
): ProxyError | undefined {
  const shown = redactProxy(proxy.url);
  const v = proxy.variable;
  const host = new URL(origin).host;
  const bypass = `if ${host} is reachable without it, add it to NO_PROXY (e.g. NO_PROXY=${new URL(origin).hostname}).`;
  if (status === 407) {
    const creds = new URL(proxy.url).username
      ? "the user and password in the proxy URL were not accepted"
      : "the proxy URL has no user and password";
    return new ProxyError(
      `The proxy ${shown} (from ${v}) answered 407 Proxy Authentication Required: ${creds}. Nothing was sent to ${host}, and it was not retried.`,
      `Put the proxy's user and password in ${v}: ${v}=http://USER:PASSWORD@${new URL(proxy.url).host} (percent-encode @, : and / in them); ${bypass}`,
    );
  }
  if (status === 403) {
    return new ProxyError(
      `The proxy ${shown} (from ${v}) refused to connect to ${host} (403 Forbidden). Nothing was sent, and it was not retried.`,
      `Ask whoever runs the proxy to allow ${host}; ${bypass}`,
    );
  }
  const phrase = err.code ? PROXY_UNREACHABLE[err.code] : undefined;
  if (!phrase) return undefined;
  return new ProxyError(
    `Could not reach the proxy ${shown} (from ${v}): ${phrase} (${err.code}). Nothing was sent to ${host}, and it was not retried.`,
    `Check ${v}: the proxy's host and port, and that it runs. If this network needs no proxy, unset ${v}; ${bypass}`,
  );
}
