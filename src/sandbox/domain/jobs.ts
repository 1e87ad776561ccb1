// Assignment jobs (POST /campaigns/{id}/assignments): the API view, one processing step, and the
// runner. A job's progress is a function of the SANDBOX clock: a step is due every JOB_PACE.tickMs
// of sandbox time, and the runner catches every unfinished job up to "now" (before each request, on
// `sandbox advance`, when the sandbox starts, and on a timer while it runs), each step stamped with
// the time it was due. So a job queued by one command of the embedded sandbox is further along (or
// finished, its event emitted at the time it finished) when a later command reads it, as on a
// served sandbox. The runner is one of the sandbox's engines (Sandbox.engines.jobs), started once by
// server.ts with the state loaded.
import type { AssignmentJob } from "../../spec/links.js";
import { parseDurationMs } from "../../spec/duration.js";
import { toIso } from "../clock.js";
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
  job.nextStepAtMs = null;
}

/** Environment variable that sets the pace (tests): "<creators per step>/<duration of a step>", e.g. "2/20s". */
const PACE_ENV = "PARTNER_SANDBOX_JOB_PACE";

/** The pace from PARTNER_SANDBOX_JOB_PACE, or the default (1,000 creators every 100 ms of sandbox time). */
export function paceFromEnv(env: NodeJS.ProcessEnv = process.env): { tickMs: number; chunk: number } {
  const m = /^\s*(\d+)\s*\/\s*(\S+)\s*$/.exec(env[PACE_ENV] ?? "");
  const chunk = m ? Number(m[1]) : 0;
  const tickMs = m ? parseDurationMs(m[2]!) : undefined;
  if (chunk >= 1 && tickMs !== undefined && tickMs >= 1) return { tickMs, chunk };
  return { tickMs: 100, chunk: 1000 };
}

/** Pace of job processing on the sandbox clock: a step every tickMs, up to chunk creators a step. */
export const JOB_PACE = paceFromEnv();

const isFinished = (job: JobRecord) => job.status === "completed" || job.status === "failed";

/**
 * One processing step of a job, due at `atMs` on the sandbox clock (`job` is a mutable copy: the
 * caller writes it back). Returns true when the job needs another step (due at job.nextStepAtMs).
 * queued → running (first step, nothing processed so a poller can see both states), then
 * JOB_PACE.chunk creators per step; completed (or failed) at the end. Times are those of the step.
 */
function stepJob(sb: Sandbox, state: OrgState, job: JobRecord, atMs = sb.clock.nowMs()): boolean {
  const now = toIso(atMs);
  const more = () => {
    job.nextStepAtMs = atMs + JOB_PACE.tickMs;
    return true;
  };
  if (job.status === "queued") {
    job.status = "running";
    job.startedAt = now;
    return more();
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
      createLink(sb, state, job.campaignId, id, now);
      job.assignedCount++;
    }
  }
  if (job.failPlanned)
    return stop("Simulated failure (POST /_sandbox/campaigns/{id}/fail-next-job): the job stopped part-way.");
  if (job.cursor < job.pending.length) return more();
  job.status = "completed";
  release(job);
  job.completedAt = now;
  if (job.failedCount > 0)
    job.lastError = `${job.failedCount} creator${job.failedCount === 1 ? "" : "s"} could not be assigned; see unassignableExternalIds.`;
  sb.emit(
    state,
    "assignment.completed",
    { jobId: job.id, campaign: campaignReference(rec), assigned: job.assignedCount, failed: job.failedCount },
    { occurredAt: now },
  );
  return false;
}

/** Longest the runner's timer sleeps before looking again (the clock can be advanced meanwhile). */
const MAX_TIMER_MS = 60_000;

/**
 * Moves the unfinished jobs along the sandbox clock, in due order across jobs, in one transaction.
 * Start-up (the jobs of the loaded state, however long no sandbox ran) and the clock's advance run
 * every step due by now. While the sandbox runs, a timer and server.ts (before each request) run at
 * most one due step per job each time: on a machine slower than the pace a job then moves as fast
 * as the machine allows, requests still answered between its steps (as before: a step every tick
 * after the previous one), its times still those of the pace. Nothing else steps a job, so the
 * answers are the same embedded or served.
 */
class JobRunner {
  /** Unfinished jobs: job id → organization and when its next step is due (sandbox-clock ms). */
  private readonly open = new Map<string, { orgId: string; dueMs: number }>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private catching = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly sb: Sandbox) {
    this.unsubscribe = sb.clock.onAdvance(() => this.catchUp(true));
  }

  /** Takes in a queued job (handlers/links.ts, in the transaction that stored it). */
  schedule(orgId: string, jobId: string): void {
    if (this.stopped) return;
    const state = this.sb.store.orgs.get(orgId);
    const job = state ? campaignsArea(state).jobs.get(jobId) : undefined;
    if (!job || isFinished(job)) return;
    this.open.set(jobId, { orgId, dueMs: job.nextStepAtMs ?? this.sb.clock.nowMs() });
    this.arm();
  }

  /**
   * Runs the steps due by now on the sandbox clock (each stamped with its due time): all of them,
   * or (`all` false: before a request, on the timer) at most one per job.
   */
  catchUp(all = false): void {
    if (this.stopped || this.catching) return;
    const now = this.sb.clock.nowMs();
    let due = false;
    for (const slot of this.open.values()) due ||= slot.dueMs <= now;
    if (!due) return;
    this.catching = true;
    try {
      if (this.sb.store.write(() => this.runDue(now, all))) this.sb.markDirty();
    } finally {
      this.catching = false;
    }
    this.arm();
  }

  /** The steps due by `now`, earliest first; each job read once and written back once. */
  private runDue(now: number, all: boolean): boolean {
    const work = new Map<string, { state: OrgState; job: JobRecord }>();
    for (;;) {
      let next: [string, { orgId: string; dueMs: number }] | undefined;
      for (const e of this.open) {
        if (e[1].dueMs > now || (!all && work.has(e[0]))) continue;
        if (!next || e[1].dueMs < next[1].dueMs) next = e;
      }
      if (!next) break;
      const [jobId, slot] = next;
      let w = work.get(jobId);
      if (!w) {
        const state = this.sb.store.orgs.get(slot.orgId);
        const read = state ? campaignsArea(state).jobs.get(jobId) : undefined;
        if (!state || !read || isFinished(read)) {
          this.open.delete(jobId); // reset (or finished) meanwhile
          continue;
        }
        w = { state, job: copyOf(read) };
        work.set(jobId, w);
      }
      if (stepJob(this.sb, w.state, w.job, slot.dueMs)) slot.dueMs = w.job.nextStepAtMs ?? now;
      else this.open.delete(jobId);
    }
    for (const { state, job } of work.values()) campaignsArea(state).jobs.set(job.id, job);
    return work.size > 0;
  }

  /** While the sandbox runs, a timer catches up when the next step falls due (in real time). */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || this.open.size === 0) return;
    let first = Number.POSITIVE_INFINITY;
    for (const slot of this.open.values()) first = Math.min(first, slot.dueMs);
    const wait = Math.min(Math.max(first - this.sb.clock.nowMs(), 0), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.catchUp();
      if (!this.timer) this.arm();
    }, wait);
    this.timer.unref();
  }

  /** Takes in every queued or running job of the store (at start-up) and catches them up. */
  resumeAll(): void {
    const now = this.sb.clock.nowMs();
    for (const state of this.sb.store.orgs.values())
      for (const status of ["queued", "running"])
        for (const j of campaignsArea(state).jobs.where("status", status))
          this.open.set(j.id, { orgId: state.id, dueMs: j.nextStepAtMs ?? now });
    this.catchUp(true);
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    if (this.sb.engines.jobs === this) this.sb.engines.jobs = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.open.clear();
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}

/** Starts the job runner of a sandbox and catches up the queued and running jobs of its state. */
export function startJobRunner(sb: Sandbox): JobRunner {
  const r = new JobRunner(sb);
  sb.engines.jobs = r;
  r.resumeAll();
  return r;
}
