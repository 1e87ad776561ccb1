// How each resource becomes a row of its table (columns in the order of src/sync/schema.ts).
import { Decimal } from "decimal.js";
import type { Campaign } from "../spec/campaigns.js";
import type { Creator } from "../spec/creators.js";
import type { EventEnvelope } from "../spec/events.js";
import type { ShareLink } from "../spec/links.js";
import type { Offer } from "../spec/offers.js";
import type { Redemption } from "../spec/redemptions.js";
import { dayOfMs } from "../spec/days.js";

export type Value = string | number | boolean | null;
export type Row = Value[];

const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

/** Canonical decimal text of a JSON number or decimal string (0.1 → "0.1", "4.50" → "4.5"). */
export function decimalText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  try {
    return new Decimal(String(v)).toFixed();
  } catch {
    return null;
  }
}

/** v x 10^places as an exact integer, or null when v has more places than that. */
export function scaled(v: unknown, places: number): number | null {
  if (v === null || v === undefined) return null;
  try {
    const d = new Decimal(String(v)).mul(new Decimal(10).pow(places));
    return d.isInteger() && d.abs().lte(Number.MAX_SAFE_INTEGER) ? d.toNumber() : null;
  } catch {
    return null;
  }
}

/**
 * The calendar day of an instant in the reporting time zone. Every UTC offset in use is a multiple of
 * 15 minutes and changes only on such a boundary, so all instants of one 15-minute slot share a day:
 * the zone is consulted once per slot (a feed of a million rows spans few slots).
 */
export function dayInZone(timeZone: string): (iso: string) => string {
  const cache = new Map<number, string>();
  const SLOT = 15 * 60_000;
  return (iso) => {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) throw new Error(`not a timestamp: ${iso}`);
    const slot = Math.floor(ms / SLOT);
    let day = cache.get(slot);
    if (day === undefined) {
      day = dayOfMs(slot * SLOT, timeZone);
      if (cache.size > 100_000) cache.clear();
      cache.set(slot, day);
    }
    return day;
  };
}

export function redemptionRow(r: Redemption, day: (iso: string) => string): Row {
  return [
    r.id,
    r.serializedGs1,
    r.redeemedAt,
    day(r.redeemedAt),
    r.recordedAt,
    r.countingState,
    orNull(r.exclusion?.excludedAt),
    orNull(r.exclusion?.reason),
    r.campaign.id,
    orNull(r.campaign.externalReference),
    orNull(r.campaign.name),
    orNull(r.offer?.baseGs1),
    orNull(r.offer?.title),
    orNull(r.brand?.id),
    orNull(r.brand?.name),
    orNull(r.creator?.externalId),
    orNull(r.creator?.name),
    orNull(r.retailer?.emailDomain),
    orNull(r.retailer?.name),
  ];
}

type Data = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const obj = (v: unknown): Data | null => (v && typeof v === "object" ? (v as Data) : null);

/** What an event is about: the resource type and id that "latest event per resource" groups by. */
function eventResource(e: EventEnvelope): [string | null, string | null] {
  const d = obj(e.data) ?? {};
  if (e.type === "redemption.recorded") return ["redemption", str(d.id)];
  if (e.type.startsWith("redemption.")) return ["redemption", str(d.redemptionId)];
  if (e.type === "code.issued") return ["code", str(d.claimId)];
  if (e.type.startsWith("campaign.")) return ["campaign", str(obj(d.campaign)?.id)];
  if (e.type === "assignment.completed") return ["assignment_job", str(d.jobId)];
  return [null, null];
}

export function eventRow(e: EventEnvelope): Row {
  const d = obj(e.data) ?? {};
  const [type, id] = eventResource(e);
  return [
    e.id,
    e.type,
    e.occurredAt,
    Boolean(e.sample),
    type,
    id,
    str(obj(d.campaign)?.id),
    str(obj(d.creator)?.externalId),
    JSON.stringify(e.data ?? null),
  ];
}

export function creatorRow(c: Creator): Row {
  return [
    c.externalId,
    c.name,
    orNull(c.email),
    orNull(c.handle),
    Boolean(c.active),
    orNull(c.createdAt),
    orNull(c.updatedAt),
  ];
}

export function campaignRow(c: Campaign): Row {
  const cm = c.commission;
  return [
    c.id,
    orNull(c.externalReference),
    c.name,
    c.status,
    orNull(c.offer?.baseGs1),
    orNull(c.offer?.title),
    orNull(c.offer?.brand?.id),
    orNull(c.offer?.brand?.name),
    orNull(c.dates?.from),
    orNull(c.dates?.through),
    orNull(c.retailer?.emailDomain),
    orNull(c.retailer?.name),
    decimalText(cm?.rate),
    decimalText(cm?.estimatedUnitSalePrice),
    decimalText(cm?.estimatedPerRedemption),
    scaled(cm?.rate, 4),
    scaled(cm?.estimatedUnitSalePrice, 2),
    orNull(c.codes?.limit),
    orNull(c.codes?.issued),
    orNull(c.codes?.redeemed),
    orNull(c.codes?.testCodes),
    orNull(c.codes?.remaining),
    JSON.stringify(c.allowedStatuses ?? []),
    orNull(c.canChangeRetailer),
    orNull(c.createdAt),
    orNull(c.updatedAt),
  ];
}

export function offerRow(o: Offer): Row {
  return [
    o.baseGs1,
    orNull(o.brand?.id),
    orNull(o.brand?.name),
    orNull(o.title),
    orNull(o.description),
    orNull(o.state),
    orNull(o.canDistribute),
    orNull(o.savings?.cents),
    orNull(o.savings?.display),
    JSON.stringify(o.productBarcodes ?? []),
    orNull(o.campaignDates?.from),
    orNull(o.campaignDates?.through),
    orNull(o.redemptionDates?.from),
    orNull(o.redemptionDates?.through),
    orNull(o.codesAvailable),
    orNull(o.retailerChoiceRequired),
    JSON.stringify(o.allowedRetailers ?? []),
    orNull(o.lastUpdatedAt),
  ];
}

export function shareLinkRow(l: ShareLink): Row {
  return [
    l.campaignId,
    l.creator.externalId,
    orNull(l.creator.name),
    orNull(l.shareUrl),
    orNull(l.shortCode),
    orNull(l.statsUrl),
    orNull(l.active),
    orNull(l.activeOnRoster),
    orNull(l.assignedAt),
    orNull(l.deactivatedAt),
  ];
}
