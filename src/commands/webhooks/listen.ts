// webhooks listen: the local receiver (src/webhooks/receiver.ts) until Ctrl-C / SIGTERM.
import { resolve } from "node:path";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { DEFAULT_MAX_BODY, type Receipt, startReceiver } from "../../webhooks/receiver.js";
import { checkAppUrl, readSecrets } from "./shared.js";
import { untilStopped } from "../../io/until-stopped.js";

export interface ListenOptions {
  secretFile?: string | undefined;
  port?: number | undefined;
  host?: string | undefined;
  out?: string | undefined;
  forwardTo?: string | undefined;
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

export async function webhooksListenRun(o: ListenOptions, ctx: Context): Promise<void> {
  if (!o.secretFile)
    throw new UsageError(
      "webhooks listen needs --secret-file FILE (the endpoint's signing secret; two lines during a rotation).",
    );
  const secrets = await readSecrets(o.secretFile);
  if (o.forwardTo) checkAppUrl(o.forwardTo, "--forward-to");
  const out = resolve(o.out ?? "events.ndjson");
  let received = false;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  try {
    rx = await startReceiver({
      secrets,
      out,
      port: o.port ?? 0,
      host: o.host ?? "127.0.0.1",
      maxBody: o.maxBody ?? DEFAULT_MAX_BODY,
      toleranceSeconds: o.tolerance,
      forwardTo: o.forwardTo,
      onReceipt: (r) => {
        received = true;
        ctx.io.err(line(r));
      },
      onForwardError: (id, msg) =>
        ctx.io.err(`forward of ${id} failed (the delivery was acknowledged): ${msg}`),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "EADDRINUSE" || e.code === "EACCES" || e.code === "EADDRNOTAVAIL")
      throw new UsageError(`Cannot listen on ${o.host ?? "127.0.0.1"}:${o.port ?? 0}: ${e.code}.`);
    if (e.code === "EISDIR" || e.code === "ENOENT" || e.code === "EACCES")
      throw new UsageError(`Cannot open ${out}: ${e.code}.`);
    throw err;
  }
  if (ctx.io.json) ctx.io.out(`${JSON.stringify({ url: rx.url, out })}\n`);
  ctx.io.err(
    `Listening on ${rx.url} (${rx.store.count} events already in ${out}${rx.store.repairedBytes ? `; cut ${rx.store.repairedBytes} bytes of an unfinished line` : ""}). Register it with "partner-cli webhooks create --url ${rx.url} --events ...". Ctrl-C to stop.`,
  );
  const quiet = setTimeout(() => {
    if (!received) void warnIfPaused(ctx);
  }, o.quietCheckMs ?? 60_000);
  quiet.unref();
  await untilStopped(ctx.signal);
  clearTimeout(quiet);
  await rx.close();
  ctx.io.err(`Stopped; ${rx.store.count} events in ${out}.`);
}

/**
 * Nothing arrived for a while: if an API key is configured (not the embedded sandbox), say which
 * endpoints are paused, since a paused endpoint only queues. Best effort: a failed read is ignored.
 */
async function warnIfPaused(ctx: Context): Promise<void> {
  try {
    const data = await (await ctx.config()).read();
    const hasTarget =
      Boolean(ctx.env.PARTNER_API_KEY) ||
      Boolean(ctx.globals.profile || ctx.env.PARTNER_PROFILE || data.currentProfile);
    if (!hasTarget) return;
    const { listWebhooks } = await import("../../api/webhooks.js");
    const list = await listWebhooks(await ctx.api());
    const paused = list.items.filter((w) => !w.active);
    if (paused.length === 0) return;
    ctx.io.err(
      `No delivery has arrived yet, and ${paused.length === 1 ? "an endpoint is" : `${paused.length} endpoints are`} paused: ${paused.map((w) => `${w.id} (${w.url})`).join(", ")}. Resume with "partner-cli webhooks update ID --enable".`,
    );
  } catch {
    // best effort
  }
}
