// webhooks get ID: one endpoint and its recent deliveries (newest first).
import { getWebhook } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { printRecord, renderTable, renderTsv } from "../../io/render.js";
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
  if (ctx.io.stdoutIsTTY) {
    ctx.io.out(`\nRecent deliveries (newest first):\n${renderTable(rows, DELIVERY_COLUMNS, ctx.io.color)}`);
  } else {
    ctx.io.out(`\n${renderTsv(rows, DELIVERY_COLUMNS)}`);
  }
}
