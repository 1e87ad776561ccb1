// Assignment jobs as the CLI runs them: the saved job id (config store `jobs`, written before any
// polling, cleared once the job is finished), polling with an adaptive interval and a progress bar,
// and the outcome (summary, --unassignable file, exit 3 when some creators got no link).
import { plural } from "../../io/words.js";
import { getMe } from "../../api/me.js";
import type { ApiClient } from "../../api/client.js";
import { getAssignmentJob } from "../../api/links.js";
import type { Context } from "../../context.js";
import { CancelledError, PartialFailure, PendingError } from "../../errors.js";
import { startProgress } from "../../io/progress.js";
import { printRecord } from "../../io/render.js";
import type { Campaign } from "../../spec/campaigns.js";
import type { AssignmentJob, SelectionSummary } from "../../spec/links.js";

export const POLL_START_MS = 250;
const POLL_FACTOR = 1.5;
export const POLL_MAX_MS = 5000;

export function isFinished(job: AssignmentJob): boolean {
  return job.status === "completed" || job.status === "failed";
}

/** The `jobs` key of a campaign: who (profile name, "env" or "embedded") | organization id | campaign id. */
export async function jobKey(ctx: Context, api: ApiClient, campaignId: string): Promise<string> {
  const t = await ctx.target();
  const who = t.source === "profile" ? `profile:${t.profileName}` : t.source;
  const orgId =
    (t.source === "profile" ? t.profile?.organization?.id : undefined) ?? (await getMe(api)).organization.id;
  return `${who}|${orgId}|${campaignId}`;
}

export async function savedJobId(ctx: Context, key: string): Promise<string | undefined> {
  return (await (await ctx.config()).read()).jobs[key]?.jobId;
}

export async function saveJob(ctx: Context, key: string, campaignId: string, jobId: string): Promise<void> {
  await (await ctx.config()).update((d) => {
    d.jobs[key] = { campaignId, jobId, savedAt: ctx.clock.now().toISOString() };
  });
}

/** Forgets the saved job of `key`, but only if it is `jobId` (a newer one stays). */
export async function clearJob(ctx: Context, key: string, jobId: string): Promise<void> {
  await (await ctx.config()).update((d) => {
    if (d.jobs[key]?.jobId === jobId) delete d.jobs[key];
  });
}

export function followCommand(campaignArg: string, jobId: string): string {
  return `partner-cli links job ${shellWord(campaignArg)} ${jobId} --wait`;
}

/** Quotes a word for a shell command line shown to the user, when it needs quoting. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * Polls the job until it is completed or failed: first after ~250 ms, then ×1.5 each time up to
 * 5 s. A progress bar shows on a terminal (stderr). Past `timeoutMs` → PendingError (exit 8) that
 * says how to resume; Ctrl-C → CancelledError; the job keeps running on the service either way.
 */
export async function followJob(
  ctx: Context,
  api: ApiClient,
  campaign: Campaign,
  campaignArg: string,
  jobId: string,
  timeoutMs: number,
): Promise<AssignmentJob> {
  const startedAt = ctx.clock.now().getTime();
  let interval = POLL_START_MS;
  let progress: Awaited<ReturnType<typeof startProgress>> | undefined;
  try {
    for (;;) {
      const job = await getAssignmentJob(api, campaign.id, jobId);
      const done = job.assignedCount + job.failedCount;
      if (!progress && !isFinished(job))
        progress = await startProgress(ctx.io, "Assigning links", job.totalCount);
      progress?.update(done, job.totalCount);
      if (isFinished(job)) return job;
      const elapsed = ctx.clock.now().getTime() - startedAt;
      if (elapsed >= timeoutMs) {
        throw new PendingError(
          `Job ${jobId} is still ${job.status} after ${duration(timeoutMs)} (${done.toLocaleString("en-US")} of ${plural(job.totalCount, "creator")} done); it keeps running on the service.`,
          `Follow it: ${followCommand(campaignArg, jobId)}  (or run the same "links assign" again: it resumes this job)`,
        );
      }
      await ctx.clock.sleep(Math.min(interval, timeoutMs - elapsed), ctx.signal);
      if (ctx.signal.aborted) {
        throw new CancelledError(
          `Interrupted; job ${jobId} keeps running on the service.`,
          `Follow it: ${followCommand(campaignArg, jobId)}`,
        );
      }
      interval = Math.min(Math.round(interval * POLL_FACTOR), POLL_MAX_MS);
    }
  } finally {
    progress?.stop();
  }
}

export interface Outcome {
  job: AssignmentJob;
  /** Known when this run queued the job; null when it resumed or showed an existing one. */
  selection: SelectionSummary | null;
  summary: { assigned: number; failed: number; unassignable: number };
}

export function outcomeOf(job: AssignmentJob, selection: SelectionSummary | null): Outcome {
  return {
    job,
    selection,
    summary: {
      assigned: job.assignedCount,
      failed: job.failedCount,
      unassignable: job.unassignableExternalIds.length,
    },
  };
}

export function jobFields(job: AssignmentJob): [string, unknown][] {
  return [
    ["jobId", job.id],
    ["campaignId", job.campaignId],
    ["status", job.status],
    ["scope", job.scope],
    ["totalCount", job.totalCount],
    ["assigned", job.assignedCount],
    ["failed", job.failedCount],
    ["unassignable", job.unassignableExternalIds.length],
    ["lastError", job.lastError],
    ["createdAt", job.createdAt],
    ["startedAt", job.startedAt],
    ["completedAt", job.completedAt],
  ];
}

export function printSelection(ctx: Context, s: SelectionSummary): void {
  const n = (x: number) => x.toLocaleString("en-US");
  const read = s.identifiersRead === null ? "whole roster" : `${n(s.identifiersRead)} ids read`;
  ctx.io.err(
    `Selection (${s.scope}, ${read}): ${n(s.matched)} matched, ${n(s.alreadyAssigned)} already have a link (skipped), ${n(s.toAssign)} to assign, ${n(s.unmatched)} not matched.`,
  );
  const shown = s.unmatchedSample.slice(0, 10);
  for (const u of shown) ctx.io.err(`  not matched: ${u.externalId} (${u.reason})`);
  if (s.unmatched > shown.length)
    ctx.io.err(
      `  … and ${n(s.unmatched - shown.length)} more (--unassignable FILE lists every creator left without a link)`,
    );
}

/**
 * Prints the outcome of a finished job: JSON {job, selection, summary} or the job record on stdout
 * and a one-line summary on stderr; writes --unassignable FILE; exit 3 (PartialFailure) when the
 * job failed or some creators could not be assigned.
 */
export async function reportOutcome(
  ctx: Context,
  o: {
    job: AssignmentJob;
    selection: SelectionSummary | null;
    unassignableFile?: string | undefined;
    /** The --unassignable CSV starts with a UTF-8 BOM. */
    unassignableBom?: boolean | undefined;
    /** false: only the stderr summary (stdout already holds another command's result). */
    stdout?: boolean | undefined;
  },
): Promise<void> {
  const { job, selection } = o;
  const out = outcomeOf(job, selection);
  if (o.unassignableFile)
    await writeUnassignable(ctx, o.unassignableFile, job, selection, o.unassignableBom === true);
  if (o.stdout === false) {
    // the caller printed its own result
  } else if (ctx.io.json) ctx.io.outJson(out);
  else printRecord(ctx.io, job, jobFields(job));
  const n = (x: number) => x.toLocaleString("en-US");
  if (job.status === "failed") {
    throw new PartialFailure(
      `Job ${job.id} failed${job.lastError ? `: ${job.lastError}` : ""} (${n(job.assignedCount)} assigned before it stopped, ${n(job.failedCount)} failed).`,
      "Run the same command again to assign the rest: creators who already have a link are skipped.",
    );
  }
  const left = Math.max(job.failedCount, job.unassignableExternalIds.length);
  ctx.io.err(
    `Job ${job.id} ${job.status}: ${n(job.assignedCount)} assigned, ${n(job.failedCount)} could not be assigned.`,
  );
  if (left > 0) {
    throw new PartialFailure(
      `${n(left)} creator${left === 1 ? "" : "s"} could not be assigned a link.`,
      o.unassignableFile
        ? `Their externalIds are in ${o.unassignableFile}.`
        : "Add --unassignable FILE to get their externalIds (or read the job with --json).",
    );
  }
}

async function writeUnassignable(
  ctx: Context,
  file: string,
  job: AssignmentJob,
  selection: SelectionSummary | null,
  bom: boolean,
): Promise<void> {
  const reasons = new Map((selection?.unmatchedSample ?? []).map((u) => [u.externalId, u.reason]));
  const { openCsvSink } = await import("../../csv/write.js");
  const sink = await openCsvSink(file, ["externalId", "reason"], ctx.io.stdout, { bom });
  try {
    await sink.write(job.unassignableExternalIds.map((id) => [id, reasons.get(id) ?? ""]));
    await sink.commit();
  } catch (err) {
    await sink.abort();
    throw err;
  }
  if (sink.path)
    ctx.io.err(
      `Wrote ${job.unassignableExternalIds.length.toLocaleString("en-US")} unassignable creators to ${file}.`,
    );
}
