// Helpers shared by the webhooks commands: local checks of URLs and event types, the secret file
// (written once, 0600, atomically; read as one or two secrets), and the endpoint/delivery views.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, link, open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../../errors.js";
import type { Column } from "../../io/render.js";
import { EVENT_TYPES } from "../../spec/events.js";
import { checkEventTypes, checkWebhookUrl, type Webhook, type WebhookDelivery } from "../../spec/webhooks.js";

/** The URL rules, checked before any request (loopback allowed: the target may be a sandbox). */
export function checkUrlArg(url: string): string {
  const reasons = checkWebhookUrl(url, { allowLoopback: true });
  if (reasons.length) throw new UsageError(`--url ${reasons.join("; ")}.`);
  return url;
}

/** Splits "a,b c" into event types and checks them; unknown types list the known ones. */
export function parseEventTypesArg(raw: string | string[], flag = "--events"): string[] {
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== "");
  const r = checkEventTypes(list);
  if (!r.ok) {
    throw new UsageError(
      `${flag}: ${r.reasons.join("; ")}.`,
      `Known types: ${EVENT_TYPES.join(", ")} (see "partner-cli events types").`,
    );
  }
  return r.value;
}

export function checkTypeArg(type: string, flag = "--type"): string {
  return parseEventTypesArg([type], flag)[0]!;
}

/**
 * Writes a secret file: mode 0600 from the start, never over an existing file unless `force`,
 * atomically (a temp file in the same directory, then link or rename), so a reader never sees half.
 */
export async function writeSecretFile(path: string, secret: string, force: boolean): Promise<string> {
  const abs = resolve(path);
  const tmp = join(dirname(abs), `.${basename(abs)}.${randomBytes(6).toString("hex")}.tmp`);
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (err) {
    throw new UsageError(
      `Cannot write the secret file ${abs}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
    );
  }
  try {
    await fh.chmod(0o600);
    await fh.writeFile(`${secret}\n`, "utf8");
    await fh.sync();
    await fh.close();
    fh = undefined;
    if (force) await rename(tmp, abs);
    else {
      try {
        // link() fails if the target exists: no window where an existing file is replaced.
        await link(tmp, abs);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST")
          throw new UsageError(
            `The secret file ${abs} already exists.`,
            "Choose another file or add --force.",
          );
        throw new UsageError(`Cannot write the secret file ${abs}: ${(err as NodeJS.ErrnoException).code}.`);
      }
      await rm(tmp, { force: true });
    }
    await chmod(abs, 0o600);
    return abs;
  } finally {
    await fh?.close().catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
  }
}

/** Checks a secret file can be created (before the request that returns the only copy of the secret). */
export async function checkSecretFileWritable(path: string, force: boolean): Promise<void> {
  const abs = resolve(path);
  if (!force) {
    try {
      await open(abs, "r").then((f) => f.close());
      throw new UsageError(`The secret file ${abs} already exists.`, "Choose another file or add --force.");
    } catch (err) {
      if (err instanceof UsageError) throw err;
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        throw new UsageError(`Cannot use the secret file ${abs}: ${(err as NodeJS.ErrnoException).code}.`);
    }
  }
  const probe = join(dirname(abs), `.${basename(abs)}.${randomBytes(6).toString("hex")}.probe`);
  try {
    await (await open(probe, "wx", 0o600)).close();
  } catch (err) {
    throw new UsageError(
      `Cannot write the secret file ${abs}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
    );
  } finally {
    await rm(probe, { force: true }).catch(() => {});
  }
}

/**
 * Reads one or two secrets (one per line; two during a rotation: the new one and the previous one).
 * Unreadable or empty files are usage errors (exit 2). The secret itself never appears in a message.
 */
export async function readSecrets(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new UsageError(
      `Cannot read the secret file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
    );
  }
  const secrets = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  if (secrets.length === 0) throw new UsageError(`The secret file ${path} holds no secret.`);
  if (secrets.length > 2)
    throw new UsageError(
      `The secret file ${path} holds ${secrets.length} lines; expected one secret, or two during a rotation.`,
    );
  return secrets;
}

export const WEBHOOK_COLUMNS: Column<Webhook>[] = [
  { header: "id", value: (w) => w.id },
  { header: "url", value: (w) => w.url },
  { header: "eventTypes", value: (w) => w.eventTypes.join(",") },
  { header: "status", value: (w) => w.status },
  { header: "failingSince", value: (w) => w.failingSince },
  { header: "lastDeliveredAt", value: (w) => w.lastDeliveredAt },
];

export function webhookFields(w: Webhook): [string, unknown][] {
  return [
    ["id", w.id],
    ["url", w.url],
    ["eventTypes", w.eventTypes.join(",")],
    ["active", w.active],
    ["status", w.status],
    ["failingSince", w.failingSince],
    ["lastDeliveredAt", w.lastDeliveredAt],
    ["previousSecretExpiresAt", w.previousSecretExpiresAt],
    ["createdAt", w.createdAt],
    ["updatedAt", w.updatedAt],
  ];
}

export const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = [
  { header: "eventId", value: (d) => d.eventId },
  { header: "eventType", value: (d) => d.eventType },
  { header: "sample", value: (d) => d.sample },
  { header: "attempts", value: (d) => d.attempts },
  { header: "lastStatusCode", value: (d) => d.lastStatusCode },
  { header: "lastFailureCategory", value: (d) => d.lastFailureCategory },
  { header: "deliveredAt", value: (d) => d.deliveredAt },
  { header: "failedAt", value: (d) => d.failedAt },
  { header: "nextAttemptAt", value: (d) => d.nextAttemptAt },
];
