// How an event looks in lists and in `events tail` on a terminal: time, type, id and a short summary.
import type { Column } from "../../io/render.js";
import type { EventEnvelope } from "../../spec/events.js";

type Data = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
}

/** A short human summary of an event's data (campaign, creator and the type's key facts). */
export function summarize(e: EventEnvelope): string {
  const d = (e.data ?? {}) as Data;
  const campaign = str((d.campaign as Data | undefined)?.name);
  const creator = str((d.creator as Data | undefined)?.externalId);
  const parts: string[] = [];
  if (e.sample) parts.push("[sample]");
  if (campaign) parts.push(campaign);
  if (creator) parts.push(`creator ${creator}`);
  switch (e.type) {
    case "campaign.status_changed":
      parts.push(`${str(d.from) ?? "?"} -> ${str(d.to) ?? "?"}`);
      break;
    case "campaign.supply_low":
    case "campaign.supply_exhausted": {
      const c = (d.codes ?? {}) as Data;
      parts.push(`${str(c.remaining) ?? "?"} of ${str(c.limit) ?? "?"} codes left`);
      break;
    }
    case "assignment.completed":
      parts.push(`assigned ${str(d.assigned) ?? "?"}, failed ${str(d.failed) ?? "?"}`);
      break;
    case "redemption.excluded":
    case "redemption.restored":
      parts.push(`redemption ${str(d.redemptionId) ?? "?"}${d.reason ? `: ${str(d.reason)}` : ""}`);
      break;
    case "redemption.recorded":
      if (str(d.serializedGs1)) parts.push(`code ${str(d.serializedGs1)}`);
      break;
    default:
      break;
  }
  return parts.join("  ");
}

export const EVENT_COLUMNS: Column<EventEnvelope>[] = [
  { header: "occurredAt", value: (e) => e.occurredAt },
  { header: "type", value: (e) => e.type },
  { header: "id", value: (e) => e.id, drop: 1 },
  { header: "summary", value: (e) => summarize(e), truncate: true },
];

/** One text line for `events tail` on a terminal. */
export function tailLine(e: EventEnvelope): string {
  return `${e.occurredAt}  ${e.type.padEnd(25)}  ${e.id}  ${summarize(e)}`;
}
