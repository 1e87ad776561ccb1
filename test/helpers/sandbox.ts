// Test helpers: a sandbox on port 0, a Context wired to it with captured streams, and request helpers.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { ApiClient } from "../../src/api/client.js";
import { type Clock, Context, type GlobalOptions } from "../../src/context.js";
import type { Prompter } from "../../src/io/prompter.js";
import type { RunningSandbox } from "../../src/sandbox/server.js";

export type { RunningSandbox };

export function tempDir(prefix = "pcli-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface Captured {
  stdout(): string;
  stderr(): string;
}

export interface TestContextOptions {
  key?: string;
  globals?: Partial<GlobalOptions>;
  tty?: boolean | { stdout?: boolean; stderr?: boolean; stdin?: boolean };
  stdin?: string;
  prompter?: Prompter;
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  /** The Context's clock (default: the system's); a fake one records and skips waits. */
  clock?: Clock;
  /** The run's Ctrl-C signal. */
  signal?: AbortSignal;
}

const captures = new WeakMap<Context, Captured>();

/** stdout/stderr that keep what is written, and a stdin holding `input` (ended; open when undefined). */
export function captureStreams(input?: string) {
  const out = new PassThrough();
  const err = new PassThrough();
  let outText = "";
  let errText = "";
  out.on("data", (c) => {
    outText += c;
  });
  err.on("data", (c) => {
    errText += c;
  });
  const stdin = new PassThrough();
  if (input !== undefined) stdin.end(input);
  return { out, err, stdin, stdout: () => outText, stderr: () => errText };
}

/** What a Context made by testContext() has written so far. */
export function capturedOf(ctx: Context): Captured {
  const c = captures.get(ctx);
  if (!c) throw new Error("capturedOf: this Context was not made by testContext()");
  return c;
}

/** A Context aimed at `sb` through PARTNER_BASE_URL/PARTNER_API_KEY, with captured stdout/stderr. */
export function testContext(
  sb: RunningSandbox | null,
  o: TestContextOptions = {},
): { ctx: Context } & Captured {
  const { out, err, stdin, stdout, stderr } = captureStreams(o.stdin);
  const tty =
    typeof o.tty === "object"
      ? o.tty
      : { stdout: o.tty ?? false, stderr: o.tty ?? false, stdin: o.tty ?? false };
  const env: NodeJS.ProcessEnv = {
    PARTNER_CLI_CONFIG_DIR: o.configDir ?? tempDir(),
    PARTNER_RETRY_BASE_MS: "20",
    ...(sb ? { PARTNER_BASE_URL: sb.url, PARTNER_API_KEY: o.key ?? sb.writeKey } : {}),
    ...o.env,
  };
  const ctx = new Context({
    streams: {
      stdout: out,
      stderr: err,
      stdin,
      stdoutIsTTY: tty.stdout ?? false,
      stderrIsTTY: tty.stderr ?? false,
      stdinIsTTY: tty.stdin ?? false,
    },
    env,
    globals: { json: false, color: false, input: true, yes: false, verbose: false, ...o.globals },
    prompter: o.prompter,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const captured = { stdout, stderr };
  captures.set(ctx, captured);
  return { ctx, ...captured };
}

/** A raw client for arranging state in tests (no retries). */
export function client(sb: RunningSandbox, key = sb.writeKey): ApiClient {
  return new ApiClient({ baseUrl: sb.url, apiKey: key, retry: { maxAttempts: 1 } });
}

/** A raw HTTP call to the sandbox: returns status, parsed body and headers. */
export async function http(
  sb: RunningSandbox,
  method: string,
  path: string,
  o: { key?: string | null; body?: unknown; rawBody?: string; control?: boolean } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const prefix = o.control ? "/_sandbox" : "/api/partner/v1";
  const headers: Record<string, string> = {};
  const key = o.key === undefined ? sb.writeKey : o.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let payload: string | undefined;
  if (o.rawBody !== undefined) payload = o.rawBody;
  else if (o.body !== undefined) payload = JSON.stringify(o.body);
  if (payload !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(sb.url + prefix + path, { method, headers, body: payload });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}
