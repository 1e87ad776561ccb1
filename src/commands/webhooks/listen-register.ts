// webhooks listen --register: an endpoint for the session. Creates one for the receiver's URL (or
// --public-url, a tunnel the developer runs) and deletes it when listen stops; an endpoint that
// already sends to that URL is used as it is (its secret from --secret-file) and kept on exit.
import { createWebhook, deleteWebhook, listWebhooks } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { EVENT_TYPES } from "../../spec/events.js";
import { checkUrlArg } from "./shared.js";

export interface Registration {
  id: string;
  url: string;
  /** True when this session created the endpoint (and deletes it on exit). */
  created: boolean;
  /** The new endpoint's secret (only when created). */
  secret?: string | undefined;
}

/** Registers `url` for the session, or adopts the endpoint that already sends there. */
export async function registerSession(
  ctx: Context,
  url: string,
  eventTypes: string[] | null,
  haveSecret: boolean,
): Promise<Registration> {
  checkUrlArg(url);
  const api = await ctx.api();
  const existing = await listWebhooks(api);
  const same = existing.items.find((w) => w.url === url);
  if (same) {
    if (!haveSecret)
      throw new UsageError(
        `Webhook ${same.id} already sends to ${url}; its secret was shown when it was registered. Nothing was registered.`,
        `Run again with --secret-file FILE holding it, or get a new one with "partner-cli webhooks rotate-secret ${same.id} --secret-file FILE".`,
      );
    ctx.io.err(`Webhook ${same.id} already sends to ${url}: using it (it is kept when listen stops).`);
    return { id: same.id, url, created: false };
  }
  if (existing.items.length >= existing.limit)
    throw new UsageError(
      `This organization already has ${existing.items.length} of ${existing.limit} webhook endpoints, so --register cannot add one. Nothing was registered.`,
      'See them with "partner-cli webhooks list" and remove one with "partner-cli webhooks delete ID", or run listen without --register.',
    );
  const r = await createWebhook(
    api,
    { url, eventTypes: eventTypes ?? [...EVENT_TYPES] },
    { knownIds: existing.items.map((w) => w.id), nowMs: () => ctx.clock.now().getTime() },
  );
  return { id: r.webhook.id, url, created: true, secret: r.secret };
}

/** Deletes the endpoint the session created (best effort: a failure is said, with the command). */
export async function unregister(ctx: Context, reg: Registration): Promise<void> {
  if (!reg.created) return;
  // After Ctrl-C the command's client refuses to start requests: this one is not tied to it.
  const client = ctx.clientFor(await ctx.target(), { signal: undefined, requestTimeoutMs: 10_000 });
  try {
    await deleteWebhook(client, reg.id);
    ctx.io.err(`Deleted webhook ${reg.id} (registered for this session).`);
  } catch (err) {
    ctx.io.err(
      `Could not delete webhook ${reg.id} (${(err as Error).message}); remove it with "partner-cli webhooks delete ${reg.id} --yes".`,
    );
  } finally {
    await client.close();
  }
}
