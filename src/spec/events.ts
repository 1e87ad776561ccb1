// Events: the envelope, the eight types with their descriptions, and the data shape of each type
// (spec: Event envelope, Events, Data by type). Shared by the client (loose) and the sandbox (strict).
import { z } from "zod";
import { type Kit, kit, Timestamp } from "./kit.js";
import { redemptionSchemas } from "./redemptions.js";

export const EVENT_TYPES = [
  "redemption.recorded",
  "redemption.excluded",
  "redemption.restored",
  "code.issued",
  "campaign.status_changed",
  "campaign.supply_low",
  "campaign.supply_exhausted",
  "assignment.completed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The spec's "Emitted when" column, as GET /events/types reports it. */
export const EVENT_TYPE_DESCRIPTIONS: Record<EventType, string> = {
  "redemption.recorded":
    "A redemption is first recorded for a code on the organization's campaign. Not for staff test redemptions.",
  "redemption.excluded": "The team excluded a redemption from the counts.",
  "redemption.restored": "The team restored an excluded redemption.",
  "code.issued":
    "A shopper received a new code through a creator's link. Recovering an existing code, and staff test codes, emit nothing.",
  "campaign.status_changed":
    "A campaign changed status via the service or the API. Not for draft creation, same-status requests, or name, date and commission edits.",
  "campaign.supply_low": "An active campaign's low-code alert was sent.",
  "campaign.supply_exhausted": "An active campaign's no-codes-left alert was sent.",
  "assignment.completed": "A bulk link job completed (even with individual failures). Not for a failed job.",
};

export function isEventType(v: unknown): v is EventType {
  return typeof v === "string" && (EVENT_TYPES as readonly string[]).includes(v);
}

function eventSchemas(k: Kit, strict: boolean) {
  // The reference objects and the traffic events' data are the ones of src/spec/redemptions.ts.
  const r = redemptionSchemas(k);
  const Data = {
    // Captured at event creation: always counted, never excluded.
    "redemption.recorded": strict
      ? r.Redemption.extend({ countingState: z.literal("counted"), exclusion: z.null() })
      : r.RedemptionRecordedData,
    "redemption.excluded": r.RedemptionExcludedData,
    "redemption.restored": r.RedemptionRestoredData,
    "code.issued": r.CodeIssuedData,
    "campaign.status_changed": k.obj({
      campaign: r.CampaignReference,
      from: k.en(["draft", "active", "paused"] as const),
      to: k.en(["active", "paused", "ended"] as const),
    }),
    "campaign.supply_low": r.SupplyData,
    "campaign.supply_exhausted": r.SupplyData,
    "assignment.completed": k.obj({
      jobId: z.string(),
      campaign: r.CampaignReference,
      assigned: z.number().int(),
      failed: z.number().int(),
    }),
  } satisfies Record<EventType, z.ZodType>;

  const envelopeShape = {
    id: z.string(),
    occurredAt: Timestamp,
    organizationId: z.string(),
    sample: z.boolean(),
  };
  /** Any envelope: type is a string and data an object (unknown types are tolerated). */
  const Envelope = k.obj({
    ...envelopeShape,
    type: k.en(EVENT_TYPES),
    data: z.record(z.string(), z.unknown()),
  });
  /** An envelope whose data is checked against its type's shape (strict for the sandbox's tests). */
  type Typed = {
    [T in EventType]: {
      id: string;
      type: T;
      occurredAt: string;
      organizationId: string;
      sample: boolean;
      data: z.infer<(typeof Data)[T]>;
    };
  }[EventType];
  const TypedEnvelope = z.discriminatedUnion(
    "type",
    EVENT_TYPES.map((t) => k.obj({ ...envelopeShape, type: z.literal(t), data: Data[t] })) as unknown as [
      z.ZodObject<{ type: z.ZodLiteral<EventType> }>,
      ...z.ZodObject<{ type: z.ZodLiteral<EventType> }>[],
    ],
  ) as unknown as z.ZodType<Typed>;
  const EventTypeInfo = k.obj({ type: k.en(EVENT_TYPES), description: z.string() });
  const EventTypes = z.array(EventTypeInfo);
  const EventPage = k.obj({ items: z.array(Envelope), nextCursor: z.string().nullable() });
  return { ...r, Data, Envelope, TypedEnvelope, EventTypeInfo, EventTypes, EventPage };
}

export const strictEvents = eventSchemas(kit("strict"), true);
export const looseEvents = eventSchemas(kit("loose"), false);
export type EventEnvelope = z.infer<typeof strictEvents.Envelope>;
export type EventData<T extends EventType> = z.infer<(typeof strictEvents.Data)[T]>;
export type CampaignReference = z.infer<typeof strictEvents.CampaignReference>;
export type CreatorReference = z.infer<typeof strictEvents.CreatorReference>;
export type SupplyCodes = z.infer<typeof strictEvents.SupplyCodes>;
