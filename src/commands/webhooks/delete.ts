// webhooks delete ID: delete an endpoint and its queued deliveries (asks first).
import { deleteWebhook, getWebhook } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { DeclinedError } from "../../errors.js";

export interface WebhooksDeleteOptions {
  id: string;
}

export async function webhooksDeleteRun({ id }: WebhooksDeleteOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const { webhook: w } = await getWebhook(api, id);
  if (!ctx.globals.yes) {
    if (!ctx.canPrompt())
      throw new DeclinedError(
        `Deleting webhook ${w.id} (${w.url}) needs confirmation.`,
        "Run again with --yes to delete it without a prompt.",
      );
    const ok = await ctx.prompter().confirm({
      message: `Delete webhook ${w.id} (${w.url})? Its queued deliveries are dropped.`,
      default: false,
    });
    if (!ok) throw new DeclinedError(`Kept webhook ${w.id}.`);
  }
  await deleteWebhook(api, w.id);
  ctx.io.err(`Deleted webhook ${w.id}; its events stay in the log (events sync) until retention ends.`);
  if (ctx.io.json) ctx.io.outJson({ deleted: w.id });
}
