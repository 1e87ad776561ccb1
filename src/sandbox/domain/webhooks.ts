// Webhook endpoints and their deliveries as the sandbox keeps them (area "webhooks" of an OrgState).
// The delivery engine (../delivery.ts) sends what is due; this module holds the records and rules.
import { randomUUID } from "node:crypto";
import type { EventType } from "../../spec/events.js";
import { LIMITS } from "../../spec/limits.js";
import type { Webhook, WebhookDelivery, WebhookStatus } from "../../spec/webhooks.js";
import { toIso } from "../clock.js";
import {
  type DeliveryRecord,
  type EndpointRecord,
  type EventEnvelope,
  type OrgState,
  webhooksArea,
} from "../store.js";

/** Finished deliveries kept per endpoint (recentDeliveries shows 50); pending ones are never pruned. */
const FINISHED_DELIVERIES_KEPT = 200;
export const ROTATION_OVERLAP_MS = LIMITS.rotationOverlapHours * 3_600_000;

function endpointStatus(ep: EndpointRecord): WebhookStatus {
  if (!ep.active) return "paused";
  return ep.failingSince ? "needs_attention" : "ok";
}

/** Secrets that sign a delivery now: the current one, plus the previous one during the overlap. */
export function signingSecrets(ep: EndpointRecord, nowMs: number): string[] {
  const out = [ep.secret];
  if (ep.previousSecret && ep.previousSecretExpiresAtMs !== null && nowMs < ep.previousSecretExpiresAtMs)
    out.push(ep.previousSecret);
  return out;
}

export function toWebhook(ep: EndpointRecord): Webhook {
  return {
    id: ep.id,
    url: ep.url,
    eventTypes: [...ep.eventTypes],
    active: ep.active,
    status: endpointStatus(ep),
    failingSince: ep.failingSince,
    lastDeliveredAt: ep.lastDeliveredAt,
    previousSecretExpiresAt:
      ep.previousSecretExpiresAtMs === null ? null : toIso(ep.previousSecretExpiresAtMs),
    createdAt: ep.createdAt,
    updatedAt: ep.updatedAt,
  };
}

export function toDelivery(d: DeliveryRecord): WebhookDelivery {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType as EventType, // recorded from a typed event
    occurredAt: d.occurredAt,
    sample: d.sample,
    attempts: d.attempts,
    lastAttemptAt: d.lastAttemptAt,
    nextAttemptAt: d.nextAttemptAtMs === null ? null : toIso(d.nextAttemptAtMs),
    deliveredAt: d.deliveredAt,
    failedAt: d.failedAt,
    lastStatusCode: d.lastStatusCode,
    lastFailureCategory: d.lastFailureCategory,
  };
}

function isPending(d: DeliveryRecord): boolean {
  return d.nextAttemptAtMs !== null;
}

/** Queues one delivery of `event` for `ep`, due now. */
export function queueDelivery(
  state: OrgState,
  ep: EndpointRecord,
  event: EventEnvelope,
  nowMs: number,
): DeliveryRecord {
  const a = webhooksArea(state);
  const d: DeliveryRecord = {
    id: randomUUID(),
    endpointId: ep.id,
    seq: a.nextSeq(),
    eventId: event.id,
    eventType: event.type,
    occurredAt: event.occurredAt,
    sample: event.sample,
    body: JSON.stringify(event),
    attempts: 0,
    lastAttemptAt: null,
    nextAttemptAtMs: nowMs,
    deliveredAt: null,
    failedAt: null,
    lastStatusCode: null,
    lastFailureCategory: null,
  };
  a.deliveries.set(d.id, d);
  return d;
}

/** Deliveries of one endpoint, newest first. */
export function deliveriesOf(state: OrgState, endpointId: string): DeliveryRecord[] {
  const a = webhooksArea(state);
  return a.deliveries.where("endpoint_id", endpointId).sort((x, y) => y.seq - x.seq);
}

export function removeDeliveriesOf(state: OrgState, endpointId: string): void {
  const a = webhooksArea(state);
  for (const d of a.deliveries.where("endpoint_id", endpointId)) a.deliveries.delete(d.id);
}

/** Drops the oldest finished deliveries of an endpoint beyond FINISHED_DELIVERIES_KEPT. */
export function pruneFinished(state: OrgState, endpointId: string): void {
  const a = webhooksArea(state);
  const finished = a.deliveries
    .where("endpoint_id", endpointId)
    .filter((d) => !isPending(d))
    .sort((x, y) => x.seq - y.seq);
  for (let i = 0; i < finished.length - FINISHED_DELIVERIES_KEPT; i++) a.deliveries.delete(finished[i]!.id);
}

// ---- samples -------------------------------------------------------------------------------

/** Fictional data for a sample of `type` (POST /webhooks/{id}/test). */
function sampleData(type: EventType, nowIso: string): Record<string, unknown> {
  const campaign = { id: randomUUID(), externalReference: "sample-campaign", name: "Sample campaign" };
  const creator = { externalId: "sample-creator", name: "Sample Creator" };
  switch (type) {
    case "redemption.recorded":
      return {
        id: randomUUID(),
        serializedGs1: "00000000000000000000",
        redeemedAt: nowIso,
        recordedAt: nowIso,
        campaign,
        offer: { baseGs1: "0000000000000", title: "Sample offer" },
        brand: { id: randomUUID(), name: "Sample Brand" },
        creator,
        retailer: null,
        countingState: "counted",
        exclusion: null,
      };
    case "redemption.excluded":
      return {
        redemptionId: randomUUID(),
        campaign,
        creator,
        excludedAt: nowIso,
        reason: "Sample exclusion",
      };
    case "redemption.restored":
      return {
        redemptionId: randomUUID(),
        campaign,
        creator,
        restoredAt: nowIso,
        reason: "Sample restoration",
      };
    case "code.issued":
      return { claimId: randomUUID(), campaign, creator, issuedAt: nowIso };
    case "campaign.status_changed":
      return { campaign, from: "draft", to: "active" };
    case "campaign.supply_low":
      return { campaign, codes: { limit: 100, issued: 91, remaining: 9 } };
    case "campaign.supply_exhausted":
      return { campaign, codes: { limit: 100, issued: 100, remaining: 0 } };
    case "assignment.completed":
      return { jobId: randomUUID(), campaign, assigned: 3, failed: 1 };
  }
}

/** A complete sample envelope (never added to the event log). */
export function sampleEnvelope(state: OrgState, type: EventType, nowMs: number): EventEnvelope {
  const nowIso = toIso(nowMs);
  return {
    id: randomUUID(),
    type,
    occurredAt: nowIso,
    organizationId: state.org.id,
    sample: true,
    data: sampleData(type, nowIso),
  };
}
