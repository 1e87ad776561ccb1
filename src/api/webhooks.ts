// Webhook endpoints (spec: Webhooks). Register and rotate return the signing secret once; a lost
// answer cannot be read back with its secret, so their recovery reads decide whether the write
// happened and, if it did, say so (the user rotates to get a secret) instead of writing again.
import type { z } from "zod";
import { ApiError, CliError } from "../errors.js";
import type { EventEnvelope } from "../spec/events.js";
import { looseEvents } from "../spec/events.js";
import { looseWebhooks, type Webhook, type WebhookDelivery } from "../spec/webhooks.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";

export type WebhookList = z.infer<typeof looseWebhooks.WebhookList>;
export type WebhookDetail = { webhook: Webhook; recentDeliveries: WebhookDelivery[] };
export type WebhookWithSecret = { webhook: Webhook; secret: string };

/** A write happened but its answer (with the only copy of the secret) was lost. Exit 1. */
class SecretLostError extends CliError {
  readonly webhookId: string;
  constructor(message: string, webhookId: string, hint: string) {
    super(message, hint);
    this.webhookId = webhookId;
  }
}

export function listWebhooks(c: ApiClient): Promise<WebhookList> {
  return c.call({
    method: "GET",
    path: "/webhooks",
    retry: "read",
    schema: looseWebhooks.WebhookList as never,
  });
}

export function getWebhook(c: ApiClient, id: string): Promise<WebhookDetail> {
  return c.call({
    method: "GET",
    path: `/webhooks/${seg(id)}`,
    retry: "read",
    schema: looseWebhooks.WebhookDetail as never,
  });
}

/** How far back (by createdAt) the recovery read looks for an endpoint this run registered. */
const RECOVERY_WINDOW_MS = 10 * 60_000;

/**
 * POST /webhooks. After an uncertain outcome the list is read: an endpoint with the same URL created
 * in the last minutes (and not known before) means the register went through and the secret is lost.
 */
export async function createWebhook(
  c: ApiClient,
  body: { url: string; eventTypes: string[] },
  o: { knownIds?: readonly string[]; nowMs?: () => number } = {},
): Promise<WebhookWithSecret> {
  const now = o.nowMs ?? Date.now;
  const known = new Set(o.knownIds ?? []);
  return c.call({
    method: "POST",
    path: "/webhooks",
    body,
    retry: "create",
    schema: looseWebhooks.WebhookWithSecret as never,
    recover: async () => {
      const list = await listWebhooks(c);
      const hit = list.items.find(
        (w) => w.url === body.url && !known.has(w.id) && now() - Date.parse(w.createdAt) < RECOVERY_WINDOW_MS,
      );
      if (!hit) return "retry";
      throw new SecretLostError(
        `The endpoint was registered as ${hit.id}, but the answer carrying its signing secret was lost.`,
        hit.id,
        `The secret cannot be read again: run "partner-cli webhooks rotate-secret ${hit.id} --secret-file FILE" to get a new one.`,
      );
    },
  });
}

export function updateWebhook(
  c: ApiClient,
  id: string,
  body: { url?: string; eventTypes?: string[]; active?: boolean },
): Promise<Webhook> {
  return c.call({
    method: "PATCH",
    path: `/webhooks/${seg(id)}`,
    body,
    retry: "idempotent",
    schema: looseWebhooks.Webhook as never,
  });
}

/** DELETE; a 404 on a repeat after an uncertain outcome means the first one went through. */
export async function deleteWebhook(c: ApiClient, id: string): Promise<void> {
  await c.call({
    method: "DELETE",
    path: `/webhooks/${seg(id)}`,
    retry: "idempotent",
    recover: async () => {
      try {
        await getWebhook(c, id);
        return "retry";
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return { value: undefined };
        throw err;
      }
    },
  });
}

/**
 * POST rotate-secret. Never repeated blindly: a second rotation would end the overlap of the secret
 * receivers still use. After an uncertain outcome the endpoint is read: unchanged means nothing
 * happened (repeat); rotated means the new secret is lost, and the error says what that implies.
 */
export async function rotateSecret(c: ApiClient, id: string): Promise<WebhookWithSecret> {
  const before = (await getWebhook(c, id)).webhook;
  return c.call({
    method: "POST",
    path: `/webhooks/${seg(id)}/rotate-secret`,
    retry: "create",
    schema: looseWebhooks.WebhookWithSecret as never,
    recover: async () => {
      const now = (await getWebhook(c, id)).webhook;
      if (
        now.previousSecretExpiresAt === before.previousSecretExpiresAt &&
        now.updatedAt === before.updatedAt
      )
        return "retry";
      throw new SecretLostError(
        `The secret of ${id} was rotated, but the answer carrying the new secret was lost.`,
        id,
        `Receivers keep working with the old secret until ${now.previousSecretExpiresAt ?? "the overlap ends"}. Run "partner-cli webhooks rotate-secret ${id} --secret-file FILE" again now: the old secret stops signing then, so put the new one in place at once.`,
      );
    },
  });
}

/** POST test: queues a sample for this endpoint only. Answers the complete envelope (202). */
export function sendTestEvent(c: ApiClient, id: string, type: string): Promise<EventEnvelope> {
  return c.call({
    method: "POST",
    path: `/webhooks/${seg(id)}/test`,
    body: { type },
    retry: "create",
    schema: looseEvents.Envelope as never,
    // A repeated sample is harmless (a second sample delivery): nothing to read back.
    recover: async () => "retry",
  });
}
