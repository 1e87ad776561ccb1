// Assignment jobs (POST /campaigns/{id}/assignments): the API view, one processing step, and the
// runner that steps jobs over real time. The runner is one of the sandbox's engines
// (Sandbox.engines.jobs), started once by server.ts, which also resumes the jobs of a loaded state.
import type { AssignmentJob } from "../../spec/links.js";
import type { Sandbox } from "../sandbox.js";
import { copyOf } from "../db.js";
import { campaignsArea, type JobRecord, type OrgState } from "../store.js";
import { campaignReference, findCampaign, isViewOnly } from "./campaigns.js";
import { createLink, linksOf } from "./links.js";

export function jobView(job: JobRecord): AssignmentJob {
  const finished = job.status === "completed" || job.status === "failed";
  return {
    id: job.id,
    campaignId: job.campaignId,
    status: job.status,
    scope: job.scope,
    totalCount: job.totalCount,
    assignedCount: job.assignedCount,
    failedCount: job.failedCount,
    lastError: job.lastError,
    unassignableExternalIds: finished ? [...job.failedIds] : [],
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
  };
}

export function jobInProgress(state: OrgState, campaignId: string): JobRecord | undefined {
  for (const j of campaignsArea(state).jobs.values())
    if (j.campaignId === campaignId && (j.status === "queued" || j.status === "running")) return j;
  return undefined;
}

/** A finished job keeps only its counts and failure list (smaller snapshots). */
function release(job: JobRecord): void {
  job.pending = [];
  job.unmatchedIds = [];
  job.cursor = 0;
}

/** Pace of job processing in real time (the sandbox clock only stamps the times). */
export const JOB_PACE = { tickMs: 100, chunk: 1000 };

/**
 * One processing step of a job (`job` is a mutable copy: the caller writes it back). Returns true
 * when the job needs another step.
 * queued → running (first step, nothing processed so a poller can see both states), then
 * JOB_PACE.chunk creators per step; completed (or failed) at the end.
 */
export function stepJob(sb: Sandbox, state: OrgState, job: JobRecord): boolean {
  const now = sb.clock.iso();
  if (job.status === "queued") {
    job.status = "running";
    job.startedAt = now;
    return true;
  }
  if (job.status !== "running") return false;
  const rec = findCampaign(state, job.campaignId);
  if (job.cursor === 0 && job.unmatchedIds.length > 0 && job.failedIds.length === 0) {
    job.failedIds.push(...job.unmatchedIds);
    job.failedCount += job.unmatchedIds.length;
  }
  const stop = (why: string) => {
    job.failedIds.push(...job.pending.slice(job.cursor));
    job.failedCount = job.totalCount - job.assignedCount;
    job.cursor = job.pending.length;
    job.status = "failed";
    release(job);
    job.lastError = why;
    job.completedAt = now;
    return false;
  };
  if (!rec) return stop("The campaign no longer exists.");
  if (rec.status === "ended") return stop("The campaign ended while the job was running.");
  if (isViewOnly(state, rec))
    return stop("The organization lost access to the campaign's brand while the job was running.");

  let budget = JOB_PACE.chunk;
  if (job.failPlanned) budget = Math.min(budget, Math.floor(job.pending.length / 2));
  const links = linksOf(state, job.campaignId);
  while (budget > 0 && job.cursor < job.pending.length) {
    const id = job.pending[job.cursor++]!;
    budget--;
    const creator = state.creators.get(id);
    if (links.has(id)) {
      // Linked meanwhile (single create): the creator has its link; skipped, not reactivated.
      job.assignedCount++;
    } else if (!creator?.active) {
      job.failedIds.push(id);
      job.failedCount++;
    } else {
      createLink(sb, state, job.campaignId, id);
      job.assignedCount++;
    }
  }
  if (job.failPlanned)
    return stop("Simulated failure (POST /_sandbox/campaigns/{id}/fail-next-job): the job stopped part-way.");
  if (job.cursor < job.pending.length) return true;
  job.status = "completed";
  release(job);
  job.completedAt = now;
  if (job.failedCount > 0)
    job.lastError = `${job.failedCount} creator${job.failedCount === 1 ? "" : "s"} could not be assigned; see unassignableExternalIds.`;
  sb.emit(state, "assignment.completed", {
    jobId: job.id,
    campaign: campaignReference(rec),
    assigned: job.assignedCount,
    failed: job.failedCount,
  });
  return false;
}

/** Runs jobs over real time, one timer chain per job; resumes unfinished jobs found in the store. */
export class JobRunner {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;
  constructor(private readonly sb: Sandbox) {}

  schedule(orgId: string, jobId: string, delayMs = JOB_PACE.tickMs): void {
    if (this.stopped || this.timers.has(jobId)) return;
    const t = setTimeout(() => {
      this.timers.delete(jobId);
      this.tick(orgId, jobId);
    }, delayMs);
    t.unref();
    this.timers.set(jobId, t);
  }

  private tick(orgId: string, jobId: string): void {
    if (this.stopped) return;
    const more = this.sb.store.write(() => {
      const state = this.sb.store.orgs.get(orgId);
      const read = state ? campaignsArea(state).jobs.get(jobId) : undefined;
      if (!state || !read) return false; // reset meanwhile
      const job = copyOf(read);
      const again = stepJob(this.sb, state, job);
      campaignsArea(state).jobs.set(job.id, job);
      return again;
    });
    this.sb.markDirty();
    if (more) this.schedule(orgId, jobId);
  }

  /** Schedules every queued or running job in the store (after a restart). */
  resumeAll(): void {
    for (const state of this.sb.store.orgs.values())
      for (const status of ["queued", "running"])
        for (const j of campaignsArea(state).jobs.where("status", status)) this.schedule(state.id, j.id);
  }

  stop(): void {
    this.stopped = true;
    if (this.sb.engines.jobs === this) this.sb.engines.jobs = undefined;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}

/** Starts the job runner of a sandbox and resumes the queued and running jobs of its state. */
export function startJobRunner(sb: Sandbox): JobRunner {
  const r = new JobRunner(sb);
  sb.engines.jobs = r;
  r.resumeAll();
  return r;
}
