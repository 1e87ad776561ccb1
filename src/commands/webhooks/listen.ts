// webhooks listen: the local receiver (src/webhooks/receiver.ts) until Ctrl-C / SIGTERM.
import { resolve } from "node:path";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { DEFAULT_MAX_BODY, type Receipt, startReceiver } from "../../webhooks/receiver.js";
import { checkAppUrl, parseEventTypesArg, readSecrets } from "./shared.js";
import { type Registration, registerSession, unregister } from "./listen-register.js";
import { DEFAULT_LISTEN_PORT } from "../../webhooks/listen-port.js";
import { untilStopped } from "../../io/until-stopped.js";

export interface ListenOptions {
  secretFile?: string | undefined;
  port?: number | undefined;
  host?: string | undefined;
  out?: string | undefined;
  forwardTo?: string | undefined;
  /** Register an endpoint for the session (deleted on exit), or use the one that has the URL. */
  register?: boolean | undefined;
  /** With --register: the URL to register (a tunnel to this receiver) instead of the receiver's own. */
  publicUrl?: string | undefined;
  /** With --register: the event types of the new endpoint (default: all). */
  events?: string | undefined;
  maxBody?: number | undefined;
  tolerance?: number | undefined;
  /** After this long without a delivery, check for paused endpoints (ms; default 60 s). */
  quietCheckMs?: number | undefined;
}

function line(r: Receipt): string {
  const time = r.at.toISOString();
  const what =
    r.kind === "rejected"
      ? `rejected ${r.status}${r.id ? ` ${r.type ?? "?"} ${r.id}` : ""}: ${r.reason ?? ""}`
      : `${r.type ?? "?"} ${r.id}${r.kind === "stored" ? "" : ` ${r.kind}`}`;
  return `${time}  ${what}`;
}

/** The receiver started on the options' port and file, its errors in words. */
async function start(o: ListenOptions, ctx: Context, secrets: string[], onReceipt: (r: Receipt) => void) {
  const out = resolve(o.out ?? "events.ndjson");
  const port = o.port ?? DEFAULT_LISTEN_PORT;
  try {
    const rx = await startReceiver({
      secrets,
      out,
      port,
      host: o.host ?? "127.0.0.1",
      maxBody: o.maxBody ?? DEFAULT_MAX_BODY,
      toleranceSeconds: o.tolerance,
      forwardTo: o.forwardTo,
      onReceipt,
      onForwardError: (id, msg) =>
        ctx.io.err(`forward of ${id} failed (the delivery was acknowledged): ${msg}`),
    });
    return { rx, out };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "EADDRINUSE" || e.code === "EACCES" || e.code === "EADDRNOTAVAIL")
      throw new UsageError(
        `Cannot listen on ${o.host ?? "127.0.0.1"}:${port}: ${e.code}.`,
        e.code === "EADDRINUSE" ? "Choose another --port, or --port 0 for any free one." : undefined,
      );
    if (e.code === "EISDIR" || e.code === "ENOENT" || e.code === "EACCES")
      throw new UsageError(`Cannot open ${out}: ${e.code}.`);
    throw err;
  }
}

export async function webhooksListenRun(o: ListenOptions, ctx: Context): Promise<void> {
  if (!o.secretFile && !o.register)
    throw new UsageError(
      "webhooks listen needs --secret-file FILE (the endpoint's signing secret; two lines during a rotation), or --register to register an endpoint for this session.",
    );
  if (o.publicUrl && !o.register) throw new UsageError("--public-url goes with --register.");
  const events = o.events ? parseEventTypesArg(o.events) : null;
  const secrets = o.secretFile ? await readSecrets(o.secretFile) : [];
  if (o.forwardTo) checkAppUrl(o.forwardTo, "--forward-to");
  let received = false;
  const { rx, out } = await start(o, ctx, secrets, (r) => {
    received = true;
    ctx.io.err(line(r));
  });
  let reg: Registration | undefined;
  try {
    if (o.register) {
      reg = await registerSession(ctx, o.publicUrl ?? rx.url, events, secrets.length > 0);
      if (reg.secret) secrets.push(reg.secret);
    }
    if (ctx.io.json)
      ctx.io.outJson({ url: rx.url, out, ...(reg ? { webhookId: reg.id, publicUrl: reg.url } : {}) });
    ctx.io.err(
      `Listening on ${rx.url} (${rx.store.count} events already in ${out}${rx.store.repairedBytes ? `; cut ${rx.store.repairedBytes} bytes of an unfinished line` : ""}). ${
        reg
          ? `${reg.created ? "Registered" : "Using"} webhook ${reg.id} for ${reg.url}${reg.created ? ` (deleted when listen stops)${o.forwardTo ? `; its signing secret, for ${o.forwardTo}, is ${reg.secret}` : ""}` : ""}.`
          : await registerHint(ctx, rx.url)
      } Ctrl-C to stop.`,
    );
    const quiet = setTimeout(() => {
      if (!received) void warnIfPaused(ctx);
    }, o.quietCheckMs ?? 60_000);
    quiet.unref();
    await untilStopped(ctx.signal);
    clearTimeout(quiet);
  } finally {
    await rx.close();
    if (reg) await unregister(ctx, reg);
  }
  ctx.io.err(`Stopped; ${rx.store.count} events in ${out}.`);
}

/** The endpoints, when an API key is configured (not the embedded sandbox); undefined otherwise or on failure. */
async function endpointsIfConfigured(ctx: Context) {
  try {
    const data = await (await ctx.config()).read();
    const hasTarget =
      Boolean(ctx.env.PARTNER_API_KEY) ||
      Boolean(ctx.globals.profile || ctx.env.PARTNER_PROFILE || data.currentProfile);
    if (!hasTarget) return undefined;
    const { listWebhooks } = await import("../../api/webhooks.js");
    return (await listWebhooks(await ctx.api())).items;
  } catch {
    return undefined; // best effort
  }
}

/** Without --register: the next step, unless an endpoint already sends to the receiver. */
async function registerHint(ctx: Context, url: string): Promise<string> {
  const same = (await endpointsIfConfigured(ctx))?.find((w) => w.url === url);
  if (same) return `Webhook ${same.id} already sends here.`;
  return `Register it with "partner-cli webhooks create --url ${url} --events ...", or run listen with --register.`;
}

/**
 * Nothing arrived for a while: if an API key is configured (not the embedded sandbox), say which
 * endpoints are paused, since a paused endpoint only queues. Best effort: a failed read is ignored.
 */
async function warnIfPaused(ctx: Context): Promise<void> {
  const paused = (await endpointsIfConfigured(ctx))?.filter((w) => !w.active) ?? [];
  if (paused.length === 0) return;
  ctx.io.err(
    `No delivery has arrived yet, and ${paused.length === 1 ? "an endpoint is" : `${paused.length} endpoints are`} paused: ${paused.map((w) => `${w.id} (${w.url})`).join(", ")}. Resume with "partner-cli webhooks update ID --enable".`,
  );
}
