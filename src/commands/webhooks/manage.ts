// webhooks list | get | create | update | delete | rotate-secret.
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateSecret,
  updateWebhook,
  type WebhookWithSecret,
} from "../../api/webhooks.js";
import { existsSync } from "node:fs";
import type { Context } from "../../context.js";
import { DeclinedError, UsageError } from "../../errors.js";
import { printList, printRecord } from "../../io/render.js";
import type { Webhook } from "../../spec/webhooks.js";
import {
  checkUrlArg,
  DELIVERY_COLUMNS,
  parseEventTypesArg,
  prepareSecretFile,
  readSecrets,
  type SecretFile,
  WEBHOOK_COLUMNS,
  webhookFields,
} from "./shared.js";

export async function listRun(ctx: Context): Promise<void> {
  const list = await listWebhooks(await ctx.api());
  if (!list.configured && !ctx.io.json)
    ctx.io.err(
      "Signing is not set up for this organization yet (configured: false); deliveries wait until it is.",
    );
  printList(ctx.io, list.items, WEBHOOK_COLUMNS, `No webhook endpoints (at most ${list.limit}).`);
}

export async function getRun(id: string, ctx: Context): Promise<void> {
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

interface SecretOpts {
  secretFile?: string | undefined;
  force?: boolean | undefined;
}

/**
 * Shows the secret exactly once: into the reserved --secret-file (with `previous` as the second
 * line during a rotation), else on stdout (JSON with --json), with a warning.
 */
async function deliverSecret(
  ctx: Context,
  r: WebhookWithSecret,
  file: SecretFile | undefined,
  verb: string,
  previous?: string | undefined,
): Promise<void> {
  if (file) {
    try {
      await file.write(previous ? [r.secret, previous] : [r.secret]);
    } catch (err) {
      // The file was checked and reserved before the request; if it still fails, do not lose the
      // only copy. One message (main prints it): what failed, what was done, where the secret is.
      ctx.io.out(`${r.secret}\n`);
      throw new UsageError(
        `${(err as Error).message} ${verb} webhook ${r.webhook.id} all the same; its secret is printed on stdout instead.`,
        "Store it now: it cannot be read again.",
      );
    }
    ctx.io.err(
      previous
        ? `${verb} webhook ${r.webhook.id}; ${file.path} (mode 0600) holds the new signing secret and, on its second line, the previous one.`
        : `${verb} webhook ${r.webhook.id}; its signing secret is in ${file.path} (mode 0600).`,
    );
    if (ctx.io.json) ctx.io.outJson({ webhook: r.webhook, secretFile: file.path });
    else printRecord(ctx.io, r.webhook, webhookFields(r.webhook));
    return;
  }
  ctx.io.err(
    `${verb} webhook ${r.webhook.id}. Its signing secret is printed below on stdout ONCE: it cannot be read again. Store it now (use --secret-file FILE next time).`,
  );
  if (ctx.io.json) ctx.io.outJson({ webhook: r.webhook, secret: r.secret });
  else ctx.io.out(`${r.secret}\n`);
}

export interface CreateOptions extends SecretOpts {
  url?: string | undefined;
  events?: string | string[] | undefined;
}

export async function createRun(o: CreateOptions, ctx: Context): Promise<void> {
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
  o: CreateOptions,
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

export interface UpdateOptions {
  url?: string | undefined;
  events?: string | string[] | undefined;
  enable?: boolean | undefined;
  disable?: boolean | undefined;
}

export async function updateRun(id: string, o: UpdateOptions, ctx: Context): Promise<void> {
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

export async function deleteRun(id: string, ctx: Context): Promise<void> {
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

/**
 * rotate-secret: with --secret-file F --force on an existing F, F's current secret (its first line)
 * becomes the second line under the new one, since the previous secret keeps signing for 24 hours
 * and receivers (webhooks listen, webhooks verify) accept either line. The file is checked and
 * reserved before the request; without --force an existing F is refused.
 */
export async function rotateRun(id: string, o: SecretOpts, ctx: Context): Promise<void> {
  const file = o.secretFile ? await prepareSecretFile(o.secretFile, Boolean(o.force)) : undefined;
  try {
    let previous: string | undefined;
    if (file && existsSync(file.path)) {
      const lines = await readSecrets(file.path).catch(() => [] as string[]);
      previous = lines[0]?.startsWith("whsec_") ? lines[0] : undefined;
      if (!previous)
        ctx.io.err(
          `Warning: ${file.path} holds no webhook secret (whsec_...); it will hold the new secret only.`,
        );
    }
    const r = await rotateSecret(await ctx.api(), id);
    await deliverSecret(ctx, r, file, "Rotated the secret of", previous);
    const until = r.webhook.previousSecretExpiresAt ?? "the 24-hour overlap ends";
    ctx.io.err(
      previous
        ? `The previous secret keeps signing until ${until}: receivers must keep both lines until then (webhooks listen and verify accept either); afterwards remove the second line.`
        : `The previous secret keeps signing until ${until}: give receivers both (one per line in the secret file, new first) until then.`,
    );
  } finally {
    await file?.discard();
  }
}
