// webhooks list: the organization's webhook endpoints (at most 5).
import { listWebhooks } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { type LimitOnly, printSome } from "../shared/list.js";
import { WEBHOOK_COLUMNS } from "./shared.js";

export async function webhooksListRun(o: LimitOnly, ctx: Context): Promise<void> {
  const list = await listWebhooks(await ctx.api());
  if (!list.configured && !ctx.io.json)
    ctx.io.err(
      "Signing is not set up for this organization yet (configured: false); deliveries wait until it is.",
    );
  printSome(ctx.io, list.items, WEBHOOK_COLUMNS, {
    limit: o.limit,
    noun: "endpoints",
    emptyNote: `No webhook endpoints (at most ${list.limit}).`,
  });
}
