// Share links and bulk assignment jobs under /campaigns/{id}: create (201/200), list, get, PATCH
// {active}, queue a job (202 {job, selection}) and read it; plus the control route that makes the
// next job of a campaign fail. Rules: Share link table, create-link and bulk assignment refusals.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { issueDetails } from "../../spec/creators.js";
import { LIMITS } from "../../spec/limits.js";
import {
  AssignmentBody,
  LinkPatchBody,
  type SelectionSummary,
  type UnmatchedEntry,
} from "../../spec/links.js";
import { conflict, invalid, notFound } from "../errors.js";
import { ok, type Handlers, type SandboxRequest } from "../http.js";
import { boolParam, pageByKey, pageParams } from "../paging.js";
import { campaignOr404, refuseViewOnly } from "./campaigns.js";
import { parseBody } from "./control.js";
import { campaignsArea, type JobRecord, type OrgState } from "../store.js";
import { createLink, linksOf, linkView } from "../domain/links.js";
import { JOB_PACE, jobInProgress, jobView } from "../domain/jobs.js";

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function ended(message: string) {
  return conflict(message);
}

function createOne(req: SandboxRequest) {
  const { state, sb } = req;
  const rec = campaignOr404(state, req.params.id!);
  const externalId = req.params.externalId!.trim();
  const creator = state.creators.get(externalId);
  if (!creator) throw notFound("Creator");
  if (rec.status === "ended") throw ended("The campaign has ended; no new links can be created.");
  refuseViewOnly(state, rec);
  if (!creator.active)
    throw conflict(`The creator ${externalId} is deactivated on the roster; reactivate it to create a link.`);
  const existing = linksOf(state, rec.id).get(externalId);
  if (existing) return ok(linkView(state, rec.id, existing), 200);
  const link = createLink(sb, state, rec.id, externalId);
  return ok(linkView(state, rec.id, link), 201);
}

function linkOr404(req: SandboxRequest) {
  const rec = campaignOr404(req.state, req.params.id!);
  const link = linksOf(req.state, rec.id).get(req.params.externalId!.trim());
  if (!link) throw notFound("Share link");
  return { rec, link };
}

function patchOne(req: SandboxRequest) {
  const { state, sb } = req;
  const { rec, link: read } = linkOr404(req);
  let link = read;
  if (req.body === null || typeof req.body !== "object" || Array.isArray(req.body))
    throw invalid("The body must be a JSON object {active: boolean}.", { body: ["must be a JSON object"] });
  const r = LinkPatchBody.safeParse(req.body);
  if (!r.success) throw invalid("The change is not valid.", issueDetails(r.error));
  refuseViewOnly(state, rec);
  if (r.data.active !== link.active) {
    link = linksOf(state, rec.id).put(link.externalId, {
      ...link,
      active: r.data.active,
      deactivatedAt: r.data.active ? null : sb.clock.iso(),
    });
  }
  return ok(linkView(state, rec.id, link));
}

/** Which creators an assignment request names: those to give a link, those not matched, and the summary. */
function selectCreators(
  state: OrgState,
  links: ReturnType<typeof linksOf>,
  body: z.infer<typeof AssignmentBody>,
) {
  const pending: string[] = [];
  const unmatchedIds: string[] = [];
  const sample: UnmatchedEntry[] = [];
  let matched = 0;
  let alreadyAssigned = 0;
  const consider = (id: string) => {
    matched++;
    if (links.has(id)) alreadyAssigned++;
    else pending.push(id);
  };
  if (body.scope === "roster") {
    const ids = [...state.creators.values()].filter((c) => c.active).map((c) => c.externalId);
    for (const id of ids.sort(byId)) consider(id);
  } else {
    const seen = new Set<string>();
    for (const raw of body.externalIds) {
      const id = raw.trim();
      if (seen.has(id)) continue; // a repeated id counts once
      seen.add(id);
      const c = state.creators.get(id);
      if (c?.active) consider(id);
      else {
        unmatchedIds.push(id);
        if (sample.length < LIMITS.unmatchedSampleMax)
          sample.push({ externalId: id, reason: c ? "inactive" : "not_on_roster" });
      }
    }
  }
  const selection: SelectionSummary = {
    scope: body.scope,
    identifiersRead: body.scope === "roster" ? null : body.externalIds.length,
    matched,
    alreadyAssigned,
    toAssign: pending.length,
    unmatched: unmatchedIds.length,
    unmatchedSample: sample,
  };
  return { pending, unmatchedIds, selection };
}

function queueJob(req: SandboxRequest) {
  const { state, sb } = req;
  const rec = campaignOr404(state, req.params.id!);
  if (req.body === null || typeof req.body !== "object" || Array.isArray(req.body))
    throw invalid('The body must be {externalIds: [...]} or {scope: "roster"}.', {
      body: ["must be a JSON object"],
    });
  const r = AssignmentBody.safeParse(req.body);
  if (!r.success) throw invalid("The assignment request is not valid.", issueDetails(r.error));
  const body = r.data;
  if (rec.status === "ended") throw ended("The campaign has ended; no links can be assigned.");
  refuseViewOnly(state, rec);
  const running = jobInProgress(state, rec.id);
  if (running)
    throw conflict(`Assignment job ${running.id} is already ${running.status} for this campaign.`, {
      jobId: [running.id],
    });

  const { pending, unmatchedIds, selection } = selectCreators(state, linksOf(state, rec.id), body);
  const { matched } = selection;
  if (pending.length === 0) {
    const why =
      matched === 0
        ? body.scope === "roster"
          ? "The roster has no active creators."
          : "None of the selected creators is an active creator on the roster."
        : "Every selected creator already has a link on this campaign.";
    throw invalid(`No new links can be assigned: ${why}`, {
      [body.scope === "roster" ? "scope" : "externalIds"]: [`no new links can be assigned: ${why}`],
    });
  }
  const a = campaignsArea(state);
  const job: JobRecord = {
    id: randomUUID(),
    campaignId: rec.id,
    status: "queued",
    scope: body.scope,
    totalCount: pending.length + unmatchedIds.length,
    assignedCount: 0,
    failedCount: 0,
    lastError: null,
    createdAt: sb.clock.iso(),
    startedAt: null,
    completedAt: null,
    pending,
    cursor: 0,
    unmatchedIds,
    failedIds: [],
    failPlanned: a.failNextJob.delete(rec.id),
    nextStepAtMs: sb.clock.nowMs() + JOB_PACE.tickMs,
  };
  a.jobs.set(job.id, job);
  sb.engines.jobs?.schedule(state.org.id, job.id);
  return ok({ job: jobView(job), selection }, 202);
}

export const linkHandlers = {
  list: ({ state, query, params }) => {
    const rec = campaignOr404(state, params.id!);
    const active = boolParam(query, "active");
    const p = pageParams(query);
    const links = linksOf(state, rec.id);
    const page = pageByKey(links, p, { where: active === undefined ? {} : { active: active ? 1 : 0 } });
    return ok({ ...page, items: page.items.map((l) => linkView(state, rec.id, l)) });
  },
  get: (req) => {
    const { rec, link } = linkOr404(req);
    return ok(linkView(req.state, rec.id, link));
  },
  create: createOne,
  patch: patchOne,
  queueJob,
  getJob: ({ state, params }) => {
    const rec = campaignOr404(state, params.id!);
    const job = campaignsArea(state).jobs.get(params.jobId!);
    if (!job || job.campaignId !== rec.id) throw notFound("Assignment job");
    return ok(jobView(job));
  },
  // Control: the next assignment job queued for this campaign fails part-way.
  failNextJob: (req) => {
    const body = parseBody(z.object({ fail: z.boolean().optional() }), req);
    const rec = campaignOr404(req.state, req.params.id!);
    const set = campaignsArea(req.state).failNextJob;
    if (body.fail === false) set.delete(rec.id);
    else set.set(rec.id, true);
    return ok({ campaignId: rec.id, failNextJob: set.has(rec.id) });
  },
} satisfies Handlers;
