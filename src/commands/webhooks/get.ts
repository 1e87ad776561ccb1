// webhooks get ID: one endpoint and its recent deliveries (newest first).
import { getWebhook } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { printList, printRecord } from "../../io/render.js";
import { DELIVERY_COLUMNS, webhookFields } from "./shared.js";

export interface WebhooksGetOptions {
  id: string;
}

export async function webhooksGetRun({ id }: WebhooksGetOptions, ctx: Context): Promise<void> {
  const detail = await getWebhook(await ctx.api(), id);
  if (ctx.io.json) {
    ctx.io.outJson(detail);
    return;
  }
  printRecord(ctx.io, detail.webhook, webhookFields(detail.webhook));
  const rows = detail.recentDeliveries;
  if (rows.length === 0) {
    ctx.io.err("No deliveries yet.");
    return;
  }
  if (ctx.io.format === "csv") {
    // A CSV holds one table: the endpoint's row; its deliveries are in the JSON.
    ctx.io.err(`${rows.length} recent deliveries: --format json shows them.`);
    return;
  }
  ctx.io.out(ctx.io.format === "table" ? "\nRecent deliveries (newest first):\n" : "\n");
  printList(ctx.io, rows, DELIVERY_COLUMNS);
}
