// webhooks update ID: change an endpoint's URL or event types, or pause/resume it.
import { getWebhook, updateWebhook } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { Webhook } from "../../spec/webhooks.js";
import { checkUrlArg, parseEventTypesArg, webhookFields } from "./shared.js";

export interface WebhooksUpdateOptions {
  id: string;
  url?: string | undefined;
  events?: string | string[] | undefined;
  enable?: boolean | undefined;
  disable?: boolean | undefined;
}

export async function webhooksUpdateRun(o: WebhooksUpdateOptions, ctx: Context): Promise<void> {
  const id = o.id;
  if (o.enable && o.disable) throw new UsageError("Choose one of --enable and --disable.");
  const body: { url?: string; eventTypes?: string[]; active?: boolean } = {};
  if (o.url !== undefined) body.url = checkUrlArg(o.url);
  if (o.events !== undefined) body.eventTypes = parseEventTypesArg(o.events);
  if (o.enable) body.active = true;
  if (o.disable) body.active = false;
  if (Object.keys(body).length === 0)
    throw new UsageError("Nothing to change.", "Give at least one of --url, --events, --enable, --disable.");
  const api = await ctx.api();
  // --enable on an enabled endpoint (or --disable on a paused one) is a state already reached:
  // success, said as such; with nothing else to change, nothing is sent.
  let already = false;
  if (body.active !== undefined) {
    const { webhook: current } = await getWebhook(api, id);
    if (current.active === body.active) {
      already = true;
      delete body.active;
      if (Object.keys(body).length === 0) {
        ctx.io.err(
          `Webhook ${current.id} is already ${current.active ? "enabled" : "paused"}; nothing changed.`,
        );
        printRecord(ctx.io, current, webhookFields(current));
        return;
      }
    }
  }
  const w: Webhook = await updateWebhook(api, id, body);
  ctx.io.err(
    body.active === false
      ? `Paused webhook ${w.id}: new events stay in the log only; queued deliveries wait until --enable.`
      : body.active === true
        ? `Enabled webhook ${w.id}; deliveries queued while it was paused are sent now.`
        : `Updated webhook ${w.id}${already ? ` (already ${w.active ? "enabled" : "paused"})` : ""}.`,
  );
  printRecord(ctx.io, w, webhookFields(w));
}
