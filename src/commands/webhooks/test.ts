// webhooks test ID --type T [--wait] [--timeout DUR]: queue a sample for one endpoint and, with
// --wait, follow its delivery in recentDeliveries until it was delivered or failed.
import { getWebhook, sendTestEvent } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { CancelledError, PartialFailure, PendingError, UsageError } from "../../errors.js";
import type { WebhookDelivery } from "../../spec/webhooks.js";
import { checkTypeArg } from "./shared.js";

export interface WebhooksTestOptions {
  id: string;
  type?: string | undefined;
  wait?: boolean | undefined;
  /** Milliseconds. */
  timeout?: number | undefined;
  /** Poll interval in milliseconds (tests). */
  intervalMs?: number | undefined;
}

export interface TestOutcome {
  eventId: string;
  state: "queued" | "delivered" | "failed" | "retrying";
  delivery: WebhookDelivery | null;
}

function describeFailure(d: WebhookDelivery): string {
  const code = d.lastStatusCode === null ? "no HTTP answer" : `HTTP ${d.lastStatusCode}`;
  return `${d.lastFailureCategory ?? "failed"} (${code}) after ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}`;
}

export async function webhooksTestRun(o: WebhooksTestOptions, ctx: Context): Promise<TestOutcome> {
  const id = o.id;
  if (!o.type) throw new UsageError("webhooks test needs --type T.", 'See "partner-cli events types".');
  const type = checkTypeArg(o.type);
  const api = await ctx.api();
  const sample = await sendTestEvent(api, id, type);
  const out: TestOutcome = { eventId: sample.id, state: "queued", delivery: null };
  if (!o.wait) {
    ctx.io.err(
      `Queued sample ${type} event ${sample.id} for webhook ${id}. Follow it with "partner-cli webhooks get ${id}" or use --wait.`,
    );
    if (ctx.io.json) ctx.io.outJson({ event: sample, ...out });
    else ctx.io.out(`${sample.id}\n`);
    return out;
  }
  const timeout = o.timeout ?? 60_000;
  const deadline = Date.now() + timeout;
  let interval = o.intervalMs ?? 500;
  for (;;) {
    if (ctx.signal.aborted) throw new CancelledError("Interrupted; the sample stays queued.");
    const detail = await getWebhook(api, id);
    const d = detail.recentDeliveries.find((x) => x.eventId === sample.id) ?? null;
    out.delivery = d;
    if (d?.deliveredAt) {
      out.state = "delivered";
      ctx.io.err(
        `Sample ${sample.id} delivered at ${d.deliveredAt} (HTTP ${d.lastStatusCode ?? "2xx"}, ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}).`,
      );
      if (ctx.io.json) ctx.io.outJson({ event: sample, ...out });
      else ctx.io.out(`delivered\n`);
      return out;
    }
    if (d?.failedAt) {
      out.state = "failed";
      if (ctx.io.json) ctx.io.outJson({ event: sample, ...out });
      throw new PartialFailure(
        `Sample ${sample.id} failed for good at ${d.failedAt}: ${describeFailure(d)}.`,
        `Check the receiver at ${detail.webhook.url}.`,
      );
    }
    if (d && d.attempts > 0 && d.lastFailureCategory) {
      // The first attempt failed: report it now; the service keeps retrying on its own schedule.
      out.state = "retrying";
      if (ctx.io.json) ctx.io.outJson({ event: sample, ...out });
      throw new PartialFailure(
        `Sample ${sample.id} was not accepted: ${describeFailure(d)}. Retries continue on the service's schedule${d.nextAttemptAt ? ` (next attempt ${d.nextAttemptAt})` : ""}.`,
        `Check the receiver at ${detail.webhook.url}; "partner-cli webhooks get ${id}" shows later attempts.`,
      );
    }
    if (Date.now() >= deadline) {
      if (ctx.io.json) ctx.io.outJson({ event: sample, ...out });
      throw new PendingError(
        `Sample ${sample.id} was not delivered within ${Math.round(timeout / 1000)} s (${d ? `${d.attempts} attempts so far` : "not yet attempted"}${detail.webhook.active ? "" : "; the endpoint is paused"}).`,
        `Follow it with "partner-cli webhooks get ${id}".`,
      );
    }
    await ctx.clock.sleep(Math.min(interval, Math.max(0, deadline - Date.now())), ctx.signal);
    interval = Math.min(interval * 1.5, 5_000);
  }
}
