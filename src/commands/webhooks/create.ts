// webhooks create: register an endpoint; its signing secret is shown once. --dry-run checks the URL,
// the event types, the --secret-file path and the organization's endpoints (read-only), and registers
// nothing: no secret is generated, the secret file is not created.
import { createWebhook, listWebhooks } from "../../api/webhooks.js";
import type { ApiClient } from "../../api/client.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { deliverSecret, type SecretOpts } from "./secret-delivery.js";
import {
  checkSecretPath,
  checkUrlArg,
  parseEventTypesArg,
  prepareSecretFile,
  type SecretFile,
} from "./shared.js";

export interface WebhooksCreateOptions extends SecretOpts {
  url?: string | undefined;
  events?: string | string[] | undefined;
  dryRun?: boolean | undefined;
}

export async function webhooksCreateRun(o: WebhooksCreateOptions, ctx: Context): Promise<void> {
  const missing = [!o.url && "--url URL", !o.events && "--events T[,T...]"].filter(Boolean);
  if (missing.length) throw new UsageError(`webhooks create needs ${missing.join(" and ")}.`);
  const url = checkUrlArg(o.url!);
  const eventTypes = parseEventTypesArg(o.events!);
  if (o.dryRun) {
    await dryRun(ctx, url, eventTypes, o);
    return;
  }
  // Checked and reserved before any request: the secret comes back once, with the endpoint.
  const file = o.secretFile ? await prepareSecretFile(o.secretFile, Boolean(o.force)) : undefined;
  try {
    await createWithFile(ctx, url, eventTypes, o, file);
  } finally {
    await file?.discard();
  }
}

/** The organization's endpoints, after the checks a create makes against them (same URL, the limit). */
async function checkExisting(ctx: Context, api: ApiClient, url: string, force: boolean) {
  const existing = await listWebhooks(api);
  const same = existing.items.find((w) => w.url === url);
  if (same && !force) {
    throw new UsageError(
      `Webhook ${same.id} already sends to ${url} (${same.eventTypes.join(",")}).`,
      `Change it with "partner-cli webhooks update ${same.id} --events ...", or add --force to register a second endpoint for the same URL.`,
    );
  }
  if (existing.items.length >= existing.limit)
    ctx.io.err(
      `This organization already has ${existing.items.length} of ${existing.limit} endpoints; the service will likely refuse.`,
    );
  return existing;
}

async function createWithFile(
  ctx: Context,
  url: string,
  eventTypes: string[],
  o: WebhooksCreateOptions,
  file: SecretFile | undefined,
): Promise<void> {
  const api = await ctx.api();
  const existing = await checkExisting(ctx, api, url, Boolean(o.force));
  const r = await createWebhook(
    api,
    { url, eventTypes },
    { knownIds: existing.items.map((w) => w.id), nowMs: () => ctx.clock.now().getTime() },
  );
  await deliverSecret(ctx, r, file, "Registered");
}

/** --dry-run: every check of a create (the file's path without creating it), then what would be sent. */
async function dryRun(ctx: Context, url: string, eventTypes: string[], o: WebhooksCreateOptions) {
  const secretFile = o.secretFile ? await checkSecretPath(o.secretFile, Boolean(o.force)) : null;
  const api = await ctx.api();
  const existing = await checkExisting(ctx, api, url, Boolean(o.force));
  const request = { url, eventTypes };
  if (ctx.io.json)
    ctx.io.outJson({
      dryRun: true,
      request: { method: "POST", path: "/webhooks", body: request },
      secretFile,
      endpoints: { existing: existing.items.length, limit: existing.limit },
    });
  ctx.io.err(
    [
      `Dry run: would register an endpoint for ${url} receiving ${eventTypes.join(", ")} (POST /webhooks; the organization has ${existing.items.length} of ${existing.limit} endpoints).`,
      secretFile
        ? `Its signing secret would be written to ${secretFile} (mode 0600).`
        : "Its signing secret would be printed on stdout once (--secret-file FILE keeps it off the screen).",
      "Nothing was registered, no secret was generated and no file was written.",
    ].join("\n"),
  );
}
