// Webhook endpoints: list, register, read (with recentDeliveries), update, delete, rotate the secret,
// and queue a sample (spec: Webhooks). Deliveries are sent by ../delivery.ts.
import { randomUUID } from "node:crypto";
import { EVENT_TYPES, isEventType } from "../../spec/events.js";
import { LIMITS } from "../../spec/limits.js";
import { checkEventTypes, checkWebhookUrl } from "../../spec/webhooks.js";
import { kickDelivery } from "../delivery.js";
import {
  deliveriesOf,
  queueDelivery,
  ROTATION_OVERLAP_MS,
  removeDeliveriesOf,
  sampleEnvelope,
  toDelivery,
  toWebhook,
} from "../domain/webhooks.js";
import { newSecret } from "../../webhooks/signature.js";
import { conflict, invalid, notFound } from "../errors.js";
import { ok, type Handlers, type SandboxRequest } from "../http.js";
import { copyOf } from "../db.js";
import { type EndpointRecord, webhooksArea } from "../store.js";

function bodyObject(req: SandboxRequest): Record<string, unknown> {
  const b = req.body;
  if (b === undefined) return {};
  if (b === null || typeof b !== "object" || Array.isArray(b))
    throw invalid("The request body must be a JSON object.", { body: ["must be a JSON object"] });
  return b as Record<string, unknown>;
}

function urlReasons(req: SandboxRequest, url: unknown): string[] {
  return checkWebhookUrl(url, { allowLoopback: !req.sb.options.strictWebhookUrls });
}

/** The endpoint of the path as a mutable copy (a handler that changes it writes it with saveEndpoint). */
function findEndpoint(req: SandboxRequest): EndpointRecord {
  const ep = webhooksArea(req.state).endpoints.get(req.params.id ?? "");
  if (!ep) throw notFound("Webhook endpoint");
  return copyOf(ep);
}

function saveEndpoint(req: SandboxRequest, ep: EndpointRecord): void {
  webhooksArea(req.state).endpoints.set(ep.id, ep);
}

export const webhookHandlers = {
  list: ({ state }) =>
    ok({
      items: [...webhooksArea(state).endpoints.values()].map(toWebhook),
      limit: LIMITS.webhookEndpointsMax,
      // Signing is always set up in the sandbox.
      configured: true,
    }),
  create: (req) => {
    const body = bodyObject(req);
    const details: Record<string, string[]> = {};
    const url = urlReasons(req, body.url);
    if (body.url === undefined || body.url === null) details.url = ["is required"];
    else if (url.length) details.url = url;
    const types = checkEventTypes(body.eventTypes);
    if (body.eventTypes === undefined || body.eventTypes === null) details.eventTypes = ["is required"];
    else if (!types.ok) details.eventTypes = types.reasons;
    if (Object.keys(details).length) throw invalid("The webhook endpoint is not valid.", details);
    const a = webhooksArea(req.state);
    if (a.endpoints.size >= LIMITS.webhookEndpointsMax)
      throw conflict(
        `An organization may have at most ${LIMITS.webhookEndpointsMax} webhook endpoints (paused ones included); delete one first.`,
      );
    const now = req.sb.clock.iso();
    const ep: EndpointRecord = {
      id: randomUUID(),
      url: body.url as string,
      eventTypes: types.ok ? types.value : [],
      active: true,
      failingSince: null,
      lastDeliveredAt: null,
      createdAt: now,
      updatedAt: now,
      secret: newSecret(),
      previousSecret: null,
      previousSecretExpiresAtMs: null,
    };
    a.endpoints.set(ep.id, ep);
    return ok({ webhook: toWebhook(ep), secret: ep.secret }, 201);
  },
  get: (req) => {
    const ep = findEndpoint(req);
    return ok({
      webhook: toWebhook(ep),
      recentDeliveries: deliveriesOf(req.state, ep.id).slice(0, LIMITS.recentDeliveriesMax).map(toDelivery),
    });
  },
  patch: (req) => {
    const ep = findEndpoint(req);
    const body = bodyObject(req);
    const given = (k: string) => body[k] !== undefined && body[k] !== null;
    if (!given("url") && !given("eventTypes") && !given("active"))
      throw invalid("Nothing to change: send at least one of url, eventTypes or active.", {
        body: ["must change at least one of url, eventTypes, active"],
      });
    const details: Record<string, string[]> = {};
    if (given("url")) {
      const r = urlReasons(req, body.url);
      if (r.length) details.url = r;
    }
    const types = given("eventTypes") ? checkEventTypes(body.eventTypes) : undefined;
    if (types && !types.ok) details.eventTypes = types.reasons;
    if (given("active") && typeof body.active !== "boolean") details.active = ["must be true or false"];
    if (Object.keys(details).length) throw invalid("The change is not valid.", details);

    let changed = false;
    let resumed = false;
    // A new URL applies to pending deliveries too (they are sent to the endpoint's current url).
    if (given("url") && body.url !== ep.url) {
      ep.url = body.url as string;
      changed = true;
    }
    // Changing eventTypes does not cancel queued deliveries.
    if (types?.ok && types.value.join("\n") !== ep.eventTypes.join("\n")) {
      ep.eventTypes = types.value;
      changed = true;
    }
    if (given("active") && body.active !== ep.active) {
      ep.active = body.active as boolean;
      changed = true;
      if (ep.active) {
        resumed = true;
        // Resuming sends the previously queued deliveries now.
        const now = req.sb.clock.nowMs();
        const { deliveries } = webhooksArea(req.state);
        for (const d of deliveriesOf(req.state, ep.id))
          if (d.nextAttemptAtMs !== null && d.nextAttemptAtMs > now)
            deliveries.set(d.id, { ...d, nextAttemptAtMs: now });
      }
    }
    if (changed) ep.updatedAt = req.sb.clock.iso();
    if (changed) saveEndpoint(req, ep);
    if (resumed || changed) kickDelivery(req.sb);
    return ok(toWebhook(ep));
  },
  remove: (req) => {
    const ep = findEndpoint(req);
    removeDeliveriesOf(req.state, ep.id);
    webhooksArea(req.state).endpoints.delete(ep.id);
    return { status: 204 };
  },
  rotateSecret: (req) => {
    const ep = findEndpoint(req);
    const nowMs = req.sb.clock.nowMs();
    // The outgoing secret keeps signing for 24 hours; a second rotation replaces it.
    ep.previousSecret = ep.secret;
    ep.previousSecretExpiresAtMs = nowMs + ROTATION_OVERLAP_MS;
    ep.secret = newSecret();
    ep.updatedAt = req.sb.clock.iso(nowMs);
    saveEndpoint(req, ep);
    return ok({ webhook: toWebhook(ep), secret: ep.secret });
  },
  test: (req) => {
    const ep = findEndpoint(req);
    const body = bodyObject(req);
    if (body.type === undefined || body.type === null)
      throw invalid("Name the event type to send a sample of.", { type: ["is required"] });
    if (!isEventType(body.type))
      throw invalid("The event type is not supported.", {
        type: [`must be one of ${EVENT_TYPES.join(", ")}`],
      });
    const nowMs = req.sb.clock.nowMs();
    const envelope = sampleEnvelope(req.state, body.type, nowMs);
    // Sent even for an unsubscribed type; a paused endpoint keeps it queued until resumed.
    queueDelivery(req.state, ep, envelope, nowMs);
    kickDelivery(req.sb);
    return ok(envelope, 202);
  },
} satisfies Handlers;
