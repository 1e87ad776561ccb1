// Helpers shared by the webhooks commands: local checks of URLs and event types, the secret file
// (written once, 0600, atomically; read as one or two secrets), and the endpoint/delivery views.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, link, lstat, open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../../errors.js";
import type { Column } from "../../io/render.js";
import { stateStyle } from "../../io/table.js";
import { EVENT_TYPES } from "../../spec/events.js";
import { checkEventTypes, checkWebhookUrl, type Webhook, type WebhookDelivery } from "../../spec/webhooks.js";

/** The URL rules, checked before any request (loopback allowed: the target may be a sandbox). */
export function checkUrlArg(url: string): string {
  const reasons = checkWebhookUrl(url, { allowLoopback: true });
  if (reasons.length) throw new UsageError(`--url ${reasons.join("; ")}.`);
  return url;
}

/** A local app's URL (`--forward-to`, `webhooks forward URL`): http or https. */
export function checkAppUrl(url: string, what: string): string {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:"))
    throw new UsageError(`${what} must be an http or https URL, not "${url}".`);
  return u.href;
}

/** Splits "a,b c" into event types and checks them; unknown types list the known ones. */
export function parseEventTypesArg(raw: string | string[], flag = "--events"): string[] {
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== "");
  const r = checkEventTypes(list);
  if (!r.ok) {
    // A reason may already list the supported types (an unknown name): the hint then does not.
    const listed = r.reasons.some((x) => x.includes(EVENT_TYPES.join(", ")));
    throw new UsageError(
      `${flag}: ${r.reasons.join("; ")}.`,
      listed
        ? 'See "partner-cli events types" for what each type carries.'
        : `Known types: ${EVENT_TYPES.join(", ")} (see "partner-cli events types").`,
    );
  }
  return r.value;
}

export function checkTypeArg(type: string, flag = "--type"): string {
  return parseEventTypesArg([type], flag)[0]!;
}

/** A secret file reserved before the request that returns the only copy of a secret. */
export interface SecretFile {
  /** Absolute path of the file the secret goes to. */
  path: string;
  /** Writes the lines (one secret per line), 0600, atomically; the reservation is used up. */
  write(lines: readonly string[]): Promise<void>;
  /** Gives the reservation up (the request failed): removes the temp file. Safe to call twice. */
  discard(): Promise<void>;
}

const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/**
 * The checks of a --secret-file that need no write (a link, not a regular file, an existing file
 * without `force`): also what `webhooks create --dry-run` checks. Returns the absolute path.
 */
export async function checkSecretPath(path: string, force: boolean): Promise<string> {
  const abs = resolve(path);
  let existing: Awaited<ReturnType<typeof lstat>> | undefined;
  try {
    existing = await lstat(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT")
      throw new UsageError(`Cannot use the secret file ${abs}: ${errCode(err)}. Nothing was sent.`);
  }
  if (existing?.isSymbolicLink()) {
    const dangling = await stat(abs).then(
      () => false,
      () => true,
    );
    throw new UsageError(
      `The secret file ${abs} is a symbolic link${dangling ? " to a missing file" : ""}; a secret is never written through a link. Nothing was sent.`,
      "Give the path of a regular file (a new one, or an existing one with --force).",
    );
  }
  if (existing && !existing.isFile())
    throw new UsageError(`The secret file ${abs} exists and is not a regular file. Nothing was sent.`);
  if (existing && !force)
    throw new UsageError(
      `The secret file ${abs} already exists. Nothing was sent.`,
      "Choose another file or add --force.",
    );
  return abs;
}

/**
 * Checks and reserves a --secret-file BEFORE the request that creates or rotates the secret, with
 * exactly what the final write does, so a file that cannot be written is refused (exit 2) while
 * nothing has been sent:
 * - the path itself is lstat-ed: a symbolic link (dangling or not) is refused, with or without
 *   --force (a secret is never written through a link, to wherever it points); so is anything that
 *   is not a regular file, and an existing file without `force`;
 * - the temp file the secret will be written to is created now, in the same directory, with the
 *   final open (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600, then fchmod 0600 since the umask masks
 *   the open mode) and kept open; `write` fills it, fsyncs it and puts it in place: link() without
 *   `force` (fails if a file appeared meanwhile: nothing is replaced), rename() with it.
 */
export async function prepareSecretFile(path: string, force: boolean): Promise<SecretFile> {
  const abs = await checkSecretPath(path, force);
  const tmp = join(dirname(abs), `.${basename(abs)}.${randomBytes(6).toString("hex")}.tmp`);
  let fh: FileHandle | undefined;
  try {
    fh = await open(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    await fh.chmod(0o600);
  } catch (err) {
    await fh?.close().catch(() => {});
    if (fh) await rm(tmp, { force: true }).catch(() => {});
    throw new UsageError(`Cannot write the secret file ${abs}: ${errCode(err)}. Nothing was sent.`);
  }
  let done = false;
  const discard = async () => {
    done = true;
    await fh?.close().catch(() => {});
    fh = undefined;
    await rm(tmp, { force: true }).catch(() => {});
  };
  return {
    path: abs,
    discard,
    async write(lines) {
      if (done || !fh) throw new Error("secret file reservation already used");
      try {
        await fh.writeFile(`${lines.join("\n")}\n`, "utf8");
        await fh.sync();
        await fh.close();
        fh = undefined;
        if (force) await rename(tmp, abs);
        else {
          try {
            // link() fails if the name exists (a dangling link included): nothing is replaced.
            await link(tmp, abs);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === "EEXIST")
              throw new UsageError(`The secret file ${abs} appeared meanwhile; it was not replaced.`);
            throw new UsageError(`Cannot write the secret file ${abs}: ${errCode(err)}.`);
          }
        }
        await syncDir(dirname(abs));
      } finally {
        await discard();
      }
    },
  };
}

/** fsync a directory so a rename or link in it survives a crash (best effort). */
async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // not supported everywhere; the file itself is fsynced
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
  { header: "id", value: (w) => w.id, drop: 1 },
  { header: "url", value: (w) => w.url, truncate: true },
  { header: "eventTypes", value: (w) => w.eventTypes.join(","), truncate: true },
  { header: "status", value: (w) => w.status, color: stateStyle },
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
  { header: "eventId", value: (d) => d.eventId, drop: 4 },
  { header: "eventType", value: (d) => d.eventType },
  { header: "sample", value: (d) => d.sample },
  { header: "attempts", value: (d) => d.attempts },
  { header: "lastStatusCode", value: (d) => d.lastStatusCode },
  { header: "lastFailureCategory", value: (d) => d.lastFailureCategory },
  { header: "deliveredAt", value: (d) => d.deliveredAt, drop: 3 },
  { header: "failedAt", value: (d) => d.failedAt, drop: 1 },
  { header: "nextAttemptAt", value: (d) => d.nextAttemptAt, drop: 2 },
];
