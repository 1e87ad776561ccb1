// One attempt on the wire: undici on a keep-alive agent (through a proxy when one is set), the
// attempt's total deadline (body included), redirects refused, the response size cap, and failures
// below HTTP classified (a certificate or a proxy: configuration; anything else: a NetworkFailure for
// the retry policy). Auth and the --verbose trace wrap it (round-trip.ts); what an answer means is
// the client's. undici loads on the first request, not at start-up.
import type { Dispatcher } from "undici";
import { CancelledError, CliError } from "../errors.js";
import { fixHint, type Service, where } from "./base-url-words.js";
import { type Call, formatBytes, redirected, seconds, tooLarge } from "./failure-words.js";
import { NEVER_SENT, NetworkFailure, TIMED_OUT } from "./network-failure.js";
import { proxyFor, proxyTraceLine } from "./proxy.js";
import type { RoundTrip, WireAnswer, WireRequest } from "./round-trip.js";
import { certificateError, isCertificateCode, proxyError, proxyRefusalStatus } from "./transport-errors.js";

export interface TransportOptions {
  /** The service (parsed on first use: a bad base URL is a UsageError then). */
  service: () => Service;
  connectTimeoutMs?: number | undefined;
  headersTimeoutMs?: number | undefined;
  bodyTimeoutMs?: number | undefined;
  requestTimeoutMs: number;
  maxResponseBytes: number;
  signal?: AbortSignal | undefined;
  trace: (line: string) => void;
}

export class Transport {
  private agentPromise: Promise<Dispatcher> | undefined;
  /**
   * The agent once made: a request then goes out in the same turn as the call that makes it (no
   * wait on a resolved promise), e.g. a feed's next page requested from the previous page's text
   * before that page is parsed.
   */
  private agentReady: Dispatcher | undefined;

  constructor(private readonly o: TransportOptions) {}

  /** The round trip of this transport, for the wrappers. */
  readonly roundTrip: RoundTrip = (req) => this.exchange(req);

  /**
   * One keep-alive pool per client, created on the first request: an Agent, or undici's
   * EnvHttpProxyAgent when a proxy is set (CONNECT for https:// targets, plain forwarding for
   * http:// ones, as curl does; NO_PROXY decided by undici).
   */
  private agent(): Promise<Dispatcher> {
    if (this.agentPromise) return this.agentPromise;
    const made: Promise<Dispatcher> = import("undici").then(({ Agent, EnvHttpProxyAgent }) => {
      const options = {
        keepAliveTimeout: 10_000,
        connect: { timeout: this.o.connectTimeoutMs ?? 10_000 },
        headersTimeout: this.o.headersTimeoutMs ?? 30_000,
        bodyTimeout: this.o.bodyTimeoutMs ?? 60_000,
      };
      const p = this.o.service().proxy;
      const agent =
        p && (p.http || p.https)
          ? new EnvHttpProxyAgent({
              ...options,
              // Given explicitly ("" = none) so undici never falls back to process.env.
              httpProxy: p.http?.url ?? "",
              httpsProxy: p.https?.url ?? "",
              noProxy: p.noProxy,
              proxyTunnel: false,
            })
          : new Agent(options);
      const line = proxyTraceLine(p, this.o.service().origin);
      if (line) this.o.trace(line);
      if (this.agentPromise === made) this.agentReady = agent;
      return agent;
    });
    this.agentPromise = made;
    return made;
  }

  async close(): Promise<void> {
    const agent = this.agentPromise;
    this.agentPromise = undefined;
    this.agentReady = undefined;
    if (agent) await (await agent).close();
  }

  private async exchange(req: WireRequest): Promise<WireAnswer> {
    const s = this.o.service();
    const agent = this.agentReady ?? (await this.agent());
    const attempt = this.attemptSignal();
    let res: Dispatcher.ResponseData;
    try {
      try {
        res = await agent.request({
          origin: s.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
          signal: attempt.signal,
        });
      } catch (err) {
        throw attempt.interrupted() ?? this.failedRequest(err as NodeJS.ErrnoException);
      }
      if (res.statusCode === 407 && proxyFor(s.proxy, s.origin)) {
        discard(res.body);
        throw this.failedRequest(new Error("Proxy Authentication Required (407)"), 407);
      }
      const bytes = await this.readBody(req, res, attempt.interrupted);
      const contentType = headerValue(res.headers["content-type"]);
      return {
        status: res.statusCode,
        headers: res.headers,
        text: bytes.toString("utf8"),
        contentType,
        bytes: bytes.length,
      };
    } finally {
      attempt.done();
    }
  }

  /**
   * What a request that got no answer becomes: a certificate that does not verify or a proxy that
   * cannot be used (configuration: thrown as they are, never retried), else a NetworkFailure for
   * the retry policy. `status`: a 407 that came back as an answer (plain forwarding of http://).
   */
  private failedRequest(e: NodeJS.ErrnoException, status?: number): Error {
    this.o.trace(`< ${status ? `proxy answered ${status}` : `network error ${e.code ?? e.message}`}`);
    const s = this.o.service();
    const proxy = proxyFor(s.proxy, s.origin);
    if (isCertificateCode(e.code)) return certificateError(e, s.origin, where(s), fixHint(s.source), proxy);
    const refused = status ?? proxyRefusalStatus(e.message);
    if (proxy) {
      const fatal = proxyError(e, refused, proxy, s.origin);
      if (fatal) return fatal;
      // Any other refusal of the proxy's (502, 503: it could not reach the service) sent nothing on.
      if (refused) return new NetworkFailure(`PROXY_${refused}`, false, `the proxy answered ${refused}`);
    }
    // A refused or failed connect never reached the server; anything later may have.
    return new NetworkFailure(e.code ?? e.message, !NEVER_SENT.includes(e.code ?? ""));
  }

  /**
   * One signal for one attempt: Ctrl-C or the attempt's deadline, whichever comes first.
   * `interrupted()` says which one ended it (undefined: neither); `done()` clears the timer. The
   * deadline is an I/O timeout beside undici's connect, headers and body timeouts, on the same
   * timers as they (not the Context's clock, which a test may run at any speed).
   */
  private attemptSignal(): { signal: AbortSignal; interrupted: () => Error | undefined; done: () => void } {
    const limitMs = this.o.requestTimeoutMs;
    const attempt = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort();
    }, limitMs);
    const user = this.o.signal;
    const onUserAbort = () => attempt.abort();
    user?.addEventListener("abort", onUserAbort, { once: true });
    if (user?.aborted) attempt.abort();
    return {
      signal: attempt.signal,
      interrupted: () => {
        if (user?.aborted) return new CancelledError("Interrupted.");
        if (!timedOut) return undefined;
        this.o.trace(`< no complete answer within ${limitMs} ms`);
        return new NetworkFailure(TIMED_OUT, true, `no complete answer within ${seconds(limitMs)}`);
      },
      done: () => {
        clearTimeout(timer);
        user?.removeEventListener("abort", onUserAbort);
      },
    };
  }

  /** The answer's body, bounded by maxResponseBytes; a redirect is refused unread. */
  private async readBody(
    req: WireRequest,
    res: Dispatcher.ResponseData,
    interrupted: () => Error | undefined,
  ): Promise<Buffer> {
    const s = this.o.service();
    const call: Call = req.call;
    // A redirect is never success, whatever the method: nothing is followed.
    if (res.statusCode >= 300 && res.statusCode < 400) {
      discard(res.body);
      this.o.trace(`< ${res.statusCode} ${call.method} ${call.path} (redirect; not followed)`);
      throw redirected(s, call, res.statusCode, headerValue(res.headers.location), s.origin + req.path);
    }
    const cap = this.o.maxResponseBytes;
    const announced = Number(res.headers["content-length"]);
    if (Number.isFinite(announced) && announced > cap) {
      discard(res.body);
      this.o.trace(`< ${res.statusCode} ${call.method} ${call.path} announces ${announced} bytes; not read`);
      throw tooLarge(s, call, cap, `announced ${formatBytes(announced)}`);
    }
    try {
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > cap) {
          discard(res.body);
          this.o.trace(
            `< ${res.statusCode} ${call.method} ${call.path} passed ${cap} bytes; stopped reading`,
          );
          throw tooLarge(s, call, cap, "stopped reading there");
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks, total);
    } catch (err) {
      if (err instanceof CliError) throw err;
      const stop = interrupted();
      if (stop) throw stop;
      const e = err as NodeJS.ErrnoException;
      this.o.trace(`< body error ${e.code ?? e.message}`);
      // The request went out; the answer was lost part-way.
      throw new NetworkFailure(e.code ?? e.message, true);
    }
  }
}

/** Stops reading a body and closes its connection; the abort this raises is expected, not an error. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
