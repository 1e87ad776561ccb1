// A view-only campaign (spec: Campaign): the organization lost access to its brand. Reads, reports
// and exports work; every change answers 409. What shows it: a campaign that has not ended and
// whose allowedStatuses is empty. Lists, `get` and the errors of changes say so, and why.
import type { Campaign } from "../../spec/campaigns.js";

type Shown = Pick<Campaign, "status" | "allowedStatuses">;

export function isViewOnly(c: Shown): boolean {
  return c.status !== "ended" && c.allowedStatuses.length === 0;
}

/** The status as a person reads it: "paused (view-only)". */
export function statusText(c: Shown): string {
  return isViewOnly(c) ? `${c.status} (view-only)` : c.status;
}

/** Why a campaign is view-only, and what still works (one sentence). */
export function viewOnlyWhy(c: Pick<Campaign, "offer">): string {
  return `the organization lost access to its brand ${c.offer.brand.name}: reads, reports and exports work; every change is refused`;
}

/** The note under a list that shows view-only campaigns. */
export function viewOnlyNote(n: number): string {
  return `${n === 1 ? "1 campaign is" : `${n.toLocaleString("en-US")} campaigns are`} view-only: the organization lost access to ${n === 1 ? "its brand" : "their brands"} (reads, reports and exports work; every change is refused).`;
}

/**
 * The 409 of a change to campaign `arg`, with the hint for its actual cause as the campaign shows it
 * now (read again: the 409's code is `conflict` whatever the cause, and its wording is the
 * service's): ended, or view-only. Undefined when the campaign shows neither.
 */
export function campaignConflictHint(c: Campaign, arg: string): string | undefined {
  if (c.status === "ended")
    return `Campaign ${arg} has ended, and ended is final: nothing on it can change or be added. Active campaigns: partner-cli campaigns list --status active`;
  if (isViewOnly(c))
    return `Campaign ${arg} is view-only: ${viewOnlyWhy(c)}. See it: partner-cli campaigns get ${arg}`;
  return undefined;
}
