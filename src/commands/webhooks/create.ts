// webhooks create: register an endpoint; its signing secret is shown once.
import { createWebhook, listWebhooks } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { deliverSecret, type SecretOpts } from "./secret-delivery.js";
import { checkUrlArg, parseEventTypesArg, prepareSecretFile, type SecretFile } from "./shared.js";

export interface WebhooksCreateOptions extends SecretOpts {
  url?: string | undefined;
  events?: string | string[] | undefined;
}

export async function webhooksCreateRun(o: WebhooksCreateOptions, ctx: Context): Promise<void> {
  const missing = [!o.url && "--url URL", !o.events && "--events T[,T...]"].filter(Boolean);
  if (missing.length) throw new UsageError(`webhooks create needs ${missing.join(" and ")}.`);
  const url = checkUrlArg(o.url!);
  const eventTypes = parseEventTypesArg(o.events!);
  // Checked and reserved before any request: the secret comes back once, with the endpoint.
  const file = o.secretFile ? await prepareSecretFile(o.secretFile, Boolean(o.force)) : undefined;
  try {
    await createWithFile(ctx, url, eventTypes, o, file);
  } finally {
    await file?.discard();
  }
}

async function createWithFile(
  ctx: Context,
  url: string,
  eventTypes: string[],
  o: WebhooksCreateOptions,
  file: SecretFile | undefined,
): Promise<void> {
  const api = await ctx.api();
  const existing = await listWebhooks(api);
  const same = existing.items.find((w) => w.url === url);
  if (same && !o.force) {
    throw new UsageError(
      `Webhook ${same.id} already sends to ${url} (${same.eventTypes.join(",")}).`,
      `Change it with "partner-cli webhooks update ${same.id} --events ...", or add --force to register a second endpoint for the same URL.`,
    );
  }
  if (existing.items.length >= existing.limit)
    ctx.io.err(
      `This organization already has ${existing.items.length} of ${existing.limit} endpoints; the service will likely refuse.`,
    );
  const r = await createWebhook(
    api,
    { url, eventTypes },
    { knownIds: existing.items.map((w) => w.id), nowMs: () => ctx.clock.now().getTime() },
  );
  await deliverSecret(ctx, r, file, "Registered");
}
