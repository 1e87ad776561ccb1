// links assign --dry-run: the selection the service would make, worked out with read-only requests
// (the campaign's links, the roster or the named creators, a job saved by an earlier run), printed
// as the real run prints it; no job is queued, nothing is saved in the config store, no
// --unassignable file is written.
import { plural } from "../../io/words.js";
import type { ApiClient } from "../../api/client.js";
import { getCreator, listCreators } from "../../api/creators.js";
import { getAssignmentJob, listLinks } from "../../api/links.js";
import { allItems } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { ApiError } from "../../errors.js";
import type { Campaign } from "../../spec/campaigns.js";
import { LIMITS } from "../../spec/limits.js";
import type { AssignmentRequest, SelectionSummary, UnmatchedEntry } from "../../spec/links.js";
import { isFinished, jobKey, printSelection, savedJobId } from "./jobs.js";

const PAGE = LIMITS.pageSizeMax;
const n = (x: number) => x.toLocaleString("en-US");

/** The externalIds of the creators who have a link on the campaign. */
async function linkedIds(api: ApiClient, campaignId: string): Promise<Set<string>> {
  const linked = new Set<string>();
  for await (const l of allItems((page) => listLinks(api, campaignId, { page, pageSize: PAGE })))
    linked.add(l.creator.externalId);
  return linked;
}

/**
 * Whether each id is an active creator (true), an inactive one (false) or not on the roster (absent):
 * one GET per id when that is fewer requests than reading the whole roster, else the roster's pages.
 */
async function rosterStates(api: ApiClient, ids: string[]): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  const total = (await listCreators(api, { page: 0, pageSize: 1 })).totalCount;
  if (ids.length <= Math.ceil(total / PAGE)) {
    for (const id of ids) {
      try {
        out.set(id, (await getCreator(api, id)).active);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
    }
    return out;
  }
  const wanted = new Set(ids);
  for await (const c of allItems((page) => listCreators(api, { page, pageSize: PAGE })))
    if (wanted.has(c.externalId)) out.set(c.externalId, c.active);
  return out;
}

/** The selection summary the service would answer (spec: Selection summary), from reads. */
async function drySelection(
  api: ApiClient,
  campaignId: string,
  request: AssignmentRequest,
): Promise<SelectionSummary> {
  const linked = await linkedIds(api, campaignId);
  const sample: UnmatchedEntry[] = [];
  let matched = 0;
  let alreadyAssigned = 0;
  let unmatched = 0;
  if (request.scope === "roster") {
    for await (const c of allItems((page) => listCreators(api, { active: true, page, pageSize: PAGE }))) {
      matched++;
      if (linked.has(c.externalId)) alreadyAssigned++;
    }
  } else {
    const states = await rosterStates(api, request.externalIds);
    for (const id of request.externalIds) {
      const active = states.get(id);
      if (active) {
        matched++;
        if (linked.has(id)) alreadyAssigned++;
        continue;
      }
      unmatched++;
      if (sample.length < LIMITS.unmatchedSampleMax)
        sample.push({ externalId: id, reason: active === false ? "inactive" : "not_on_roster" });
    }
  }
  return {
    scope: request.scope,
    identifiersRead: request.scope === "roster" ? null : request.externalIds.length,
    matched,
    alreadyAssigned,
    toAssign: matched - alreadyAssigned,
    unmatched,
    unmatchedSample: sample,
  };
}

/** What a real run would do with this selection, in one sentence (and the exit code it would end with). */
function verdict(campaign: Campaign, s: SelectionSummary, savedJob: string | undefined): string {
  if (savedJob)
    return `a real run would follow job ${savedJob}, queued by an earlier run, instead of queuing another`;
  if (campaign.status === "ended")
    return "the service would refuse: the campaign has ended (no links can be assigned)";
  if (s.toAssign > 0)
    return `a real run would queue a job for ${plural(s.toAssign + s.unmatched, "creator")}: ${n(s.toAssign)} would get a link${s.unmatched ? `, ${n(s.unmatched)} would be refused (not active creators on the roster)` : ""}`;
  if (s.matched === 0)
    return "a real run would queue nothing and exit 2: no selected creator is an active creator on the roster";
  if (s.unmatched > 0)
    return `a real run would queue nothing and exit 3: the matched creators already have a link and ${n(s.unmatched)} cannot get one`;
  return "a real run would queue nothing and exit 0: every selected creator already has a link";
}

/** A job saved by an earlier run that is still known to the service (a real run follows it). */
async function pendingSavedJob(
  ctx: Context,
  api: ApiClient,
  campaignId: string,
): Promise<string | undefined> {
  const id = await savedJobId(ctx, await jobKey(ctx, api, campaignId));
  if (!id) return undefined;
  try {
    const job = await getAssignmentJob(api, campaignId, id);
    return isFinished(job) ? undefined : job.id;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

export async function dryRunAssignment(
  ctx: Context,
  api: ApiClient,
  campaign: Campaign,
  campaignArg: string,
  request: AssignmentRequest,
): Promise<void> {
  const selection = await drySelection(api, campaign.id, request);
  const saved = await pendingSavedJob(ctx, api, campaign.id);
  const body = request.scope === "roster" ? { scope: "roster" } : { externalIds: request.externalIds };
  const said = verdict(campaign, selection, saved);
  if (ctx.io.json)
    ctx.io.outJson({
      dryRun: true,
      campaign: { id: campaign.id, externalReference: campaign.externalReference, status: campaign.status },
      request: { method: "POST", path: `/campaigns/${campaign.id}/assignments`, body },
      selection,
      outcome: said,
    });
  else printSelection(ctx, selection);
  ctx.io.err(`Dry run on campaign ${campaignArg}: ${said}. Nothing was queued.`);
}
