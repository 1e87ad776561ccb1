// api METHOD PATH: one request (or every page of a list) with the current target's key and base URL,
// through ApiClient.raw; the answer's body on stdout as sent, --fields/--jq applied by the Io.
import { readFile } from "node:fs/promises";
import { STATUS_CODES } from "node:http";
import { text as readStream } from "node:stream/consumers";
import type { ApiClient, RawRequest, RawResponse } from "../../api/client.js";
import { allPages, feedPages, type Page } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { ProtocolError, UsageError } from "../../errors.js";
import { isRecord } from "../../spec/records.js";

export interface ApiOptions {
  method: string;
  path: string;
  /** -F key=value (typed) and -f key=value (text), in command-line order. */
  params?: { text: string; typed: boolean }[] | undefined;
  input?: string | undefined;
  paginate?: boolean | undefined;
  format?: "json" | "ndjson" | undefined;
  include?: boolean | undefined;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

const PREFIX = "/api/partner/v1";
/** The sandbox's own control routes (src/sandbox/routes.ts), reached only when the target is a sandbox. */
const CONTROL = "/_sandbox";

/** Keys a partner-cli sandbox makes (src/sandbox/seed.ts): write sk_sandbox_…, read-only rk_sandbox_…. */
const SANDBOX_KEY = /^[sr]k_sandbox_/;

/** A path under /_sandbox: the control route's path below it; else undefined. */
function controlPath(path: string): string | undefined {
  if (path !== CONTROL && !path.startsWith(`${CONTROL}/`)) return undefined;
  return path.slice(CONTROL.length) || "/";
}

/**
 * Control routes go only to a sandbox: the embedded one, or one whose key is a sandbox key. A real
 * service is not sent them.
 */
async function refuseUnlessSandbox(ctx: Context): Promise<void> {
  const target = await ctx.target();
  if (target.source === "embedded" || SANDBOX_KEY.test(target.apiKey)) return;
  throw new UsageError(
    `${CONTROL} paths are the control routes of a partner-cli sandbox, and the target (${target.baseUrl}, from ${target.baseUrlSource}) is not one: its key is not a sandbox key. Nothing was sent.`,
    'Use them with the embedded sandbox (--sandbox) or a "partner-cli sandbox start" (its base URL and write key); for the service, give a path below /api/partner/v1.',
  );
}

/** A parameter from -f (text) or -F (typed), in the order given. */
export interface Param {
  key: string;
  value: unknown;
}

/**
 * -F values: true, false, null and JSON numbers become JSON values (integers only while exact);
 * everything else stays text. "0012" is not a JSON number, so identifiers with leading zeros stay text.
 */
function typedValue(v: string): unknown {
  if (v === "true") return true;
  if (v === "false") return false;
  if (v === "null") return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(v)) {
    const n = Number(v);
    if (Number.isFinite(n) && (!/^-?\d+$/.test(v) || Number.isSafeInteger(n))) return n;
  }
  return v;
}

function parseParams(given: { text: string; typed: boolean }[]): Param[] {
  return given.map(({ text, typed }) => {
    const flag = typed ? "-F" : "-f";
    const eq = text.indexOf("=");
    if (eq <= 0)
      throw new UsageError(
        `${flag} "${text}" is not key=value.`,
        `Example: ${flag} ${typed ? "codeLimit=500" : "name=Spring"}`,
      );
    return { key: text.slice(0, eq), value: typed ? typedValue(text.slice(eq + 1)) : text.slice(eq + 1) };
  });
}

/** "dates[from]" → ["dates", "from"]; "eventTypes[]" → ["eventTypes", ""] (append). */
function keyPath(key: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m)
    throw new UsageError(
      `The parameter name "${key}" is not valid.`,
      "Use name, name[nested] or name[] (append to a list).",
    );
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!);
  if (rest.slice(0, -1).includes(""))
    throw new UsageError(`The parameter name "${key}" has "[]" before its end; only a final "[]" appends.`);
  return [m[1]!, ...rest];
}

/** The JSON body from parameters: nested keys with [sub], lists with []. */
function bodyFrom(params: Param[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { key, value } of params) {
    const path = keyPath(key);
    let node: Record<string, unknown> = body;
    for (let i = 0; i < path.length; i++) {
      const k = path[i]!;
      const last = i === path.length - 1;
      const appendNext = path[i + 1] === "";
      if (last) {
        node[k] = value;
        break;
      }
      if (appendNext) {
        const list = node[k];
        if (list !== undefined && !Array.isArray(list))
          throw new UsageError(`The parameter "${key}" appends to "${k}", which already holds a value.`);
        node[k] = [...((list as unknown[] | undefined) ?? []), value];
        break;
      }
      const next = node[k];
      if (next === undefined) node[k] = {};
      else if (next === null || typeof next !== "object" || Array.isArray(next))
        throw new UsageError(`The parameter "${key}" nests under "${k}", which already holds a value.`);
      node = node[k] as Record<string, unknown>;
    }
  }
  return body;
}

/** Characters sent as they are in a path or query; anything else is percent-encoded. */
const URL_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/;

function encodeLoose(s: string): string {
  let out = "";
  for (const ch of s) out += URL_SAFE.test(ch) ? ch : encodeURIComponent(ch);
  // A "%" that does not start an escape is a percent sign.
  return out.replace(/%(?![0-9A-Fa-f]{2})/g, "%25");
}

/** PATH → the path below /api/partner/v1 and its query parameters. Refuses URLs and dot segments. */
function splitPath(raw: string): { path: string; query: URLSearchParams } {
  const t = raw.trim();
  if (t === "") throw new UsageError("PATH must not be empty.", "Example: partner-cli api GET /me");
  if (/^[a-z][a-z0-9+.-]*:/i.test(t) || t.startsWith("//"))
    throw new UsageError(
      `"${t}" is a URL; api takes a path below ${PREFIX} (for example /creators).`,
      "The service comes from --base-url, PARTNER_BASE_URL or the profile, as for every command; nothing was sent.",
    );
  let p = t.startsWith("/") ? t : `/${t}`;
  if (p === PREFIX || p.startsWith(`${PREFIX}/`) || p.startsWith(`${PREFIX}?`))
    p = p.slice(PREFIX.length) || "/";
  const hash = p.indexOf("#");
  if (hash !== -1) p = p.slice(0, hash) + encodeURIComponent("#") + p.slice(hash + 1);
  const q = p.indexOf("?");
  const pathPart = encodeLoose(q === -1 ? p : p.slice(0, q));
  if (pathPart.split("/").some((s) => s === "." || s === ".."))
    throw new UsageError(
      `PATH "${t}" has a "." or ".." segment; give the path as the API names it.`,
      "Encode a literal dot segment in an identifier as %2E.",
    );
  const query = new URLSearchParams(q === -1 ? "" : encodeLoose(p.slice(q + 1)));
  return { path: pathPart, query };
}

function withQuery(path: string, query: URLSearchParams): string {
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

async function readInput(file: string, ctx: Context): Promise<string> {
  let text: string;
  if (file === "-") {
    if (ctx.io.stdinIsTTY)
      throw new UsageError("--input - reads the body from stdin; pipe it in, or give a file name.");
    text = await readStream(ctx.io.stdin);
  } else {
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      throw new UsageError(
        `Cannot read --input ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}. Nothing was sent.`,
      );
    }
  }
  const where = file === "-" ? "stdin" : file;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") throw new UsageError(`The body from ${where} is empty. Nothing was sent.`);
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `The body from ${where} is not JSON (${(err as Error).message}). Nothing was sent.`,
      "The API takes JSON bodies.",
    );
  }
  return text;
}

/** "HTTP/1.1 200 OK" and the response headers, as --include prints them. */
function headBlock(res: RawResponse): string {
  const lines = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ""}`.trimEnd()];
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  return `${lines.join("\n")}\n\n`;
}

function isPaged(v: unknown): v is Page<unknown> & Record<string, unknown> {
  return (
    isRecord(v) &&
    Array.isArray(v.items) &&
    typeof v.page === "number" &&
    typeof v.pageSize === "number" &&
    typeof v.totalCount === "number"
  );
}

function isFeed(v: unknown): v is { items: unknown[]; nextCursor: string | null } {
  return (
    isRecord(v) &&
    Array.isArray(v.items) &&
    "nextCursor" in v &&
    (v.nextCursor === null || typeof v.nextCursor === "string")
  );
}

export async function apiRun(o: ApiOptions, ctx: Context): Promise<void> {
  const method = o.method.toUpperCase() as Method;
  if (!METHODS.includes(method))
    throw new UsageError(`METHOD must be one of ${METHODS.join(", ")}, not "${o.method}".`);
  const split = splitPath(o.path);
  const { query } = split;
  const params = parseParams(o.params ?? []);
  const control = controlPath(split.path);
  const path = control ?? split.path;
  if (control !== undefined && o.paginate)
    throw new UsageError("--paginate reads the Partner API's lists; the sandbox's control routes have none.");
  const sendsBody = method === "POST" || method === "PUT" || method === "PATCH";
  if (o.input !== undefined && !sendsBody)
    throw new UsageError(`${method} sends no body; leave out --input (parameters go to the query string).`);
  if (o.paginate && method !== "GET")
    throw new UsageError("--paginate reads lists, with GET only.", `Leave out --paginate for ${method}.`);
  if (o.paginate && o.include)
    throw new UsageError(
      "--include prints one answer's status and headers; with --paginate there are several.",
      "Leave out one of them.",
    );

  let body: string | undefined;
  if (o.input !== undefined) body = await readInput(o.input, ctx);
  if (sendsBody && o.input === undefined) {
    if (params.length) body = JSON.stringify(bodyFrom(params));
  } else {
    for (const p of params) query.append(p.key, p.value === null ? "null" : String(p.value));
  }

  if (control !== undefined) await refuseUnlessSandbox(ctx);
  ctx.io.jsonOutput();
  const api = await ctx.api();
  const first = await api.raw({
    ...request(method, withQuery(path, query), body),
    ...(control === undefined ? {} : { prefix: CONTROL }),
  });
  if (o.include) ctx.io.stdout.write(headBlock(first));
  failOnError(ctx, first);
  if (!o.paginate) {
    printBody(ctx, first.text, o.format ?? "json");
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(first.text);
  } catch {
    parsed = undefined;
  }
  if (isPaged(parsed)) {
    await paginatePages(ctx, api, o, path, query, parsed);
    return;
  }
  if (isFeed(parsed)) {
    await paginateFeed(ctx, api, o, path, query, parsed);
    return;
  }
  ctx.io.err(
    "--paginate: the answer is neither a paged list ({items,page,pageSize,totalCount}) nor a feed ({items,nextCursor}); printed as it came.",
  );
  printBody(ctx, first.text, o.format ?? "json");
}

function request(method: Method, path: string, body: string | undefined): RawRequest {
  // A GET is a read; any other method is treated as a write that may create something, so an
  // uncertain outcome (500, a connection lost after sending) is never repeated blindly.
  return { method, path, body, retry: method === "GET" ? "read" : "create" };
}

function printBody(ctx: Context, text: string, format: "json" | "ndjson"): void {
  if (text === "") return; // 204 and friends
  if (format === "ndjson") {
    let line = text.trim();
    if (line.includes("\n")) {
      try {
        line = JSON.stringify(JSON.parse(line));
      } catch {
        // not JSON: as it came
      }
    }
    ctx.io.out(`${line}\n`);
    return;
  }
  ctx.io.outJsonText(text);
}

/**
 * An error answer: the service's own body on stdout (as gh does), bypassing --fields/--jq; its
 * message goes to stderr and the exit code for its status is chosen by main.ts.
 */
function failOnError(ctx: Context, res: RawResponse): void {
  if (!res.error) return;
  if (res.text) ctx.io.stdout.write(res.text.endsWith("\n") ? res.text : `${res.text}\n`);
  throw res.error;
}

async function getJson(api: ApiClient, ctx: Context, path: string): Promise<unknown> {
  const res = await api.raw({ method: "GET", path, retry: "read" });
  failOnError(ctx, res);
  try {
    return JSON.parse(res.text);
  } catch {
    throw new ProtocolError(`The service answered GET ${path} with something that is not JSON.`);
  }
}

/** Every page of a paged list, from the page asked for; range-mode pages keep the first page's asOf. */
async function paginatePages(
  ctx: Context,
  api: ApiClient,
  o: ApiOptions,
  path: string,
  query: URLSearchParams,
  first: Page<unknown> & Record<string, unknown>,
): Promise<void> {
  const out = itemWriter(ctx, o.format ?? "json");
  const pageQuery = (page: number) => {
    const q = new URLSearchParams(query);
    q.set("page", String(page));
    q.set("pageSize", String(first.pageSize));
    if (typeof first.asOf === "string" && !q.has("asOf")) q.set("asOf", first.asOf);
    return q;
  };
  const fetchPage = async (page: number): Promise<Page<unknown>> => {
    if (page === first.page) return first;
    const p = await getJson(api, ctx, withQuery(path, pageQuery(page)));
    if (!isPaged(p)) throw new UsageError(`Page ${page} of ${path} is not a paged list; stopped.`);
    return p;
  };
  for await (const p of allPages(fetchPage, first.page)) out.add(p.items);
  out.end();
}

/** A feed, following nextCursor (as `after`) until it is null. */
async function paginateFeed(
  ctx: Context,
  api: ApiClient,
  o: ApiOptions,
  path: string,
  query: URLSearchParams,
  first: { items: unknown[]; nextCursor: string | null },
): Promise<void> {
  const out = itemWriter(ctx, o.format ?? "json");
  const start = query.get("after") ?? undefined;
  let firstUsed = false;
  const fetchPage = async (after: string | undefined) => {
    if (!firstUsed) {
      firstUsed = true;
      return first;
    }
    const q = new URLSearchParams(query);
    if (after !== undefined) q.set("after", after);
    const p = await getJson(api, ctx, withQuery(path, q));
    if (!isFeed(p)) throw new UsageError(`A page of the feed ${path} has no items and nextCursor; stopped.`);
    return p;
  };
  for await (const p of feedPages(fetchPage, start)) out.add(p.items);
  out.end();
}

/** NDJSON streams item by item; JSON collects one array. */
function itemWriter(ctx: Context, format: "json" | "ndjson") {
  const all: unknown[] = [];
  return {
    add(items: unknown[]) {
      if (format === "ndjson") for (const item of items) ctx.io.out(`${JSON.stringify(item)}\n`);
      else all.push(...items);
    },
    end() {
      if (format === "json") ctx.io.outJson(all);
    },
  };
}
