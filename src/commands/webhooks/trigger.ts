// webhooks trigger TYPE: the short form of `webhooks test ID --type TYPE --wait`. The endpoint is
// --endpoint ID, or the organization's only one (`webhooks listen --register` makes one for the
// session); the outcome of its delivery is shown as `test --wait` shows it. The sample is also in the
// event log, so a running `webhooks forward` sends it to the local app too.
import { listWebhooks } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { checkTypeArg } from "./shared.js";
import { type TestOutcome, webhooksTestRun } from "./test.js";

export interface WebhooksTriggerOptions {
  type: string;
  endpoint?: string | undefined;
  /** Milliseconds. */
  timeout?: number | undefined;
}

/** The organization's only endpoint, or a usage error that says what to do. */
async function onlyEndpoint(ctx: Context): Promise<string> {
  const list = await listWebhooks(await ctx.api());
  if (list.items.length === 1) return list.items[0]!.id;
  if (list.items.length === 0)
    throw new UsageError(
      "There is no webhook endpoint to send a sample through.",
      'Register one for a session with "partner-cli webhooks listen --register" (or "webhooks create"); to send real events to a local app, run "partner-cli webhooks forward URL".',
    );
  throw new UsageError(
    `This organization has ${list.items.length} webhook endpoints; say which one with --endpoint ID: ${list.items.map((w) => `${w.id} (${w.url})`).join(", ")}.`,
  );
}

export async function webhooksTriggerRun(o: WebhooksTriggerOptions, ctx: Context): Promise<TestOutcome> {
  const type = checkTypeArg(o.type, "TYPE");
  const id = o.endpoint ?? (await onlyEndpoint(ctx));
  return await webhooksTestRun({ id, type, wait: true, timeout: o.timeout }, ctx);
}
