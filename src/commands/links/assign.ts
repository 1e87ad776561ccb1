// links assign CAMPAIGN (--roster | --ids FILE | EXTERNAL_ID...): queue an assignment job, save its
// id in the config store BEFORE polling, follow it to the end, report the outcome. A rerun while a
// saved job is unfinished follows that job instead of queuing another.
import { plural } from "../../io/words.js";
import type { ApiClient } from "../../api/client.js";
import { listCreators } from "../../api/creators.js";
import { getAssignmentJob, listLinks, queueAssignment } from "../../api/links.js";
import { allItems } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { ApiError, PartialFailure, UsageError } from "../../errors.js";
import type { Campaign } from "../../spec/campaigns.js";
import { LIMITS } from "../../spec/limits.js";
import type { AssignmentAccepted, AssignmentJob, AssignmentRequest } from "../../spec/links.js";
import { resolveCampaign } from "../campaigns/resolve.js";
import { explainLinkConflict } from "./conflict.js";
import { readIdList } from "../../csv/id-list.js";
import {
  clearJob,
  followCommand,
  followJob,
  isFinished,
  jobKey,
  outcomeOf,
  printSelection,
  reportOutcome,
  saveJob,
  savedJobId,
  shellWord,
} from "./jobs.js";

export interface LinksAssignOptions {
  campaign: string;
  externalIds: string[];
  roster?: boolean | undefined;
  ids?: string | undefined;
  /** How to read the --ids file: --column externalId=HEADER, --encoding, --delimiter. */
  column?: string[] | undefined;
  encoding?: string | undefined;
  delimiter?: string | undefined;
  /** --sheet NAME|N: the sheet of an .xlsx --ids file. */
  sheet?: string | undefined;
  quote?: string | undefined;
  /** commander's --no-wait: false when given. */
  wait?: boolean | undefined;
  timeout?: number | undefined;
  unassignable?: string | undefined;
  /** --bom: the --unassignable CSV starts with a UTF-8 BOM. */
  bom?: boolean | undefined;
  /** Work out and print the selection with read-only requests; queue nothing. */
  dryRun?: boolean | undefined;
}

const DEFAULT_TIMEOUT_MS = 600_000;

interface RunOptions {
  wait: boolean;
  timeoutMs: number;
  unassignable?: string | undefined;
  unassignableBom?: boolean | undefined;
  /** false: the outcome goes to stderr only (the interactive setup prints the campaign on stdout). */
  stdout?: boolean | undefined;
}

/**
 * --column, --encoding, --delimiter and --quote say how to read the --ids file: with --roster or EXTERNAL_ID
 * arguments there is no file to read, so they are refused (exit 2) rather than silently ignored.
 */
function refuseReadFlagsWithoutIds(o: LinksAssignOptions): void {
  if (o.ids !== undefined) return;
  const given = [
    o.column?.length ? "--column" : null,
    o.encoding !== undefined ? "--encoding" : null,
    o.delimiter !== undefined ? "--delimiter" : null,
    o.sheet !== undefined ? "--sheet" : null,
    o.quote !== undefined ? "--quote" : null,
  ].filter((x): x is string => x !== null);
  if (given.length === 0) return;
  const flags = given.length === 1 ? given[0]! : `${given.slice(0, -1).join(", ")} and ${given.at(-1)!}`;
  throw new UsageError(
    `${flags} ${given.length === 1 ? "says" : "say"} how to read the --ids file, but no --ids file was given (${o.roster ? "--roster" : "the creators are EXTERNAL_ID arguments"}). Nothing was sent.`,
    `Drop ${given.length === 1 ? "it" : "them"}, or give the creators as --ids FILE.`,
  );
}

/** The service's 400 when no new link can be assigned (exit 2). */
class NothingToAssign extends UsageError {}

export async function linksAssignRun(o: LinksAssignOptions, ctx: Context): Promise<void> {
  const sources = [
    o.roster ? "--roster" : null,
    o.ids !== undefined ? "--ids" : null,
    o.externalIds.length ? "EXTERNAL_ID" : null,
  ].filter((x): x is string => x !== null);
  if (sources.length !== 1) {
    throw new UsageError(
      sources.length === 0
        ? "Say which creators get links: --roster, --ids FILE, or EXTERNAL_ID arguments."
        : `Give exactly one of --roster, --ids FILE or EXTERNAL_ID arguments (got ${sources.join(" and ")}).`,
    );
  }
  refuseReadFlagsWithoutIds(o);
  if (o.unassignable === "-")
    throw new UsageError("--unassignable needs a file name (stdout carries the job outcome).");
  if (o.bom && o.unassignable === undefined)
    throw new UsageError(
      "--bom applies to the --unassignable file.",
      "Add --unassignable FILE, or drop --bom.",
    );
  let request: AssignmentRequest;
  if (o.roster) {
    request = { scope: "roster" };
  } else {
    let ids: string[];
    if (o.ids !== undefined) {
      const list = await readIdList(o.ids, ctx.io.stdin, {
        column: o.column,
        encoding: o.encoding,
        delimiter: o.delimiter,
        sheet: o.sheet,
        quote: o.quote,
        note: (line) => ctx.io.err(line),
      });
      ids = list.ids;
      if (list.duplicates > 0)
        ctx.io.err(
          `${o.ids === "-" ? "stdin" : o.ids}: ${plural(list.duplicates, "repeated id")} sent once.`,
        );
    } else {
      ids = [...new Set(o.externalIds.map((s) => s.trim()).filter(Boolean))];
      if (ids.length === 0) throw new UsageError("The EXTERNAL_ID arguments are blank.");
    }
    if (ids.length > LIMITS.assignmentIdsMax) {
      throw new UsageError(
        `${ids.length.toLocaleString("en-US")} creator ids given; one assignment takes at most 10,000. Nothing was sent.`,
        "Split the list into files of at most 10,000 ids and run links assign once per file.",
      );
    }
    request = { scope: "selected", externalIds: ids };
  }

  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  if (o.dryRun) {
    const { dryRunAssignment } = await import("./assign-dry-run.js");
    await dryRunAssignment(ctx, api, campaign, o.campaign, request);
    return;
  }
  await runAssignment(ctx, api, campaign, o.campaign, request, {
    wait: o.wait !== false,
    timeoutMs: o.timeout ?? DEFAULT_TIMEOUT_MS,
    unassignable: o.unassignable,
    unassignableBom: o.bom,
  });
}

/** The interactive setup's last step: links for the whole roster, as `links assign --roster`. */
export async function assignRoster(ctx: Context, campaign: Campaign): Promise<void> {
  const api = await ctx.api();
  const arg = campaign.externalReference ?? campaign.id;
  try {
    await runAssignment(
      ctx,
      api,
      campaign,
      arg,
      { scope: "roster" },
      { wait: true, timeoutMs: DEFAULT_TIMEOUT_MS, stdout: false },
    );
  } catch (err) {
    if (err instanceof NothingToAssign) {
      ctx.io.err(`No links assigned: ${err.message}`);
      ctx.io.err(
        `Add creators with "partner-cli roster import FILE", then run: partner-cli links assign ${shellWord(arg)} --roster`,
      );
      return;
    }
    throw err;
  }
}

async function runAssignment(
  ctx: Context,
  api: ApiClient,
  campaign: Campaign,
  campaignArg: string,
  request: AssignmentRequest,
  o: RunOptions,
): Promise<void> {
  const key = await jobKey(ctx, api, campaign.id);

  // A job saved by an earlier run that did not see it finish: follow it rather than queue another.
  const savedId = await savedJobId(ctx, key);
  if (savedId) {
    let saved: AssignmentJob | undefined;
    try {
      saved = await getAssignmentJob(api, campaign.id, savedId);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      await clearJob(ctx, key, savedId); // gone (e.g. a reset sandbox): forget it
    }
    if (saved) {
      ctx.io.err(
        isFinished(saved)
          ? `Job ${saved.id}, queued by an earlier run for this campaign, has ${saved.status} meanwhile; showing its outcome instead of queuing another (nothing new was sent; run the command again to queue a new assignment).`
          : `Resuming job ${saved.id}, queued by an earlier run for this campaign and still ${saved.status}; not queuing another (nothing new was sent).`,
      );
      await finish(ctx, api, campaign, campaignArg, key, saved, null, o);
      return;
    }
  }

  let accepted: AssignmentAccepted;
  try {
    accepted = await queueAssignment(api, campaign.id, request, campaignArg);
  } catch (err) {
    const explained =
      err instanceof ApiError && err.status === 409
        ? await explainLinkConflict(api, err, campaign, campaignArg)
        : explainQueueError(err, campaignArg);
    // "No new links can be assigned" is often a re-run with nothing to do: look before failing.
    if (
      explained instanceof NothingToAssign &&
      (await nothingToDo(ctx, api, campaign, campaignArg, request, o))
    )
      return;
    throw explained;
  }
  const { job, selection } = accepted;
  await saveJob(ctx, key, campaign.id, job.id);
  if (!ctx.io.json) printSelection(ctx, selection);
  ctx.io.err(`Queued job ${job.id} (${plural(job.totalCount, "creator")}).`);
  await finish(ctx, api, campaign, campaignArg, key, job, selection, o);
}

async function finish(
  ctx: Context,
  api: ApiClient,
  campaign: Campaign,
  campaignArg: string,
  key: string,
  job: AssignmentJob,
  selection: AssignmentAccepted["selection"] | null,
  o: RunOptions,
): Promise<void> {
  if (!o.wait && !isFinished(job)) {
    if (ctx.io.json) ctx.io.outJson({ ...outcomeOf(job, selection), summary: null });
    else ctx.io.out(`${job.id}\n`);
    ctx.io.err(`Not waiting. Follow it: ${followCommand(campaignArg, job.id)}`);
    return;
  }
  const final = isFinished(job) ? job : await followJob(ctx, api, campaign, campaignArg, job.id, o.timeoutMs);
  await clearJob(ctx, key, final.id);
  await reportOutcome(ctx, {
    job: final,
    selection,
    unassignableFile: o.unassignable,
    unassignableBom: o.unassignableBom,
    stdout: o.stdout,
  });
}

/**
 * After the service's 400 "no new links can be assigned": reads the campaign's links (and, for
 * --roster, the count of active creators) to tell a re-run with nothing to do from a selection that
 * cannot be linked. Every selected creator already linked → says so, prints an empty outcome and
 * returns true (exit 0). Some linked and the rest not active on the roster → PartialFailure (exit 3)
 * naming them (and --unassignable FILE lists them). Otherwise false: the caller's NothingToAssign
 * stands (exit 2: no active creator selected at all).
 */
async function nothingToDo(
  ctx: Context,
  api: ApiClient,
  campaign: Campaign,
  campaignArg: string,
  request: AssignmentRequest,
  o: RunOptions,
): Promise<boolean> {
  const n = (x: number) => x.toLocaleString("en-US");
  const linked = new Map<string, boolean>(); // externalId → active on the roster
  for await (const l of allItems((page) => listLinks(api, campaign.id, { page, pageSize: 200 })))
    linked.set(l.creator.externalId, l.activeOnRoster);
  let selected: number;
  let without: string[] = [];
  let what: string;
  if (request.scope === "roster") {
    // The roster scope selects every active creator; the service found none without a link.
    selected = (await listCreators(api, { active: true, page: 0, pageSize: 1 })).totalCount;
    const linkedActive = [...linked.values()].filter(Boolean).length;
    if (selected === 0 || linkedActive < selected) return false;
    what = `all ${n(selected)} active creators`;
  } else {
    selected = request.externalIds.length;
    const have = request.externalIds.filter((id) => linked.has(id));
    without = request.externalIds.filter((id) => !linked.has(id));
    if (have.length === 0) return false;
    what = `all ${n(selected)} selected creators`;
    if (without.length > 0) {
      if (o.unassignable) await writeIds(ctx, o.unassignable, without);
      const shown = without.slice(0, 10).join(", ");
      throw new PartialFailure(
        `No job was queued: ${n(have.length)} of ${n(selected)} selected creators already have a link on campaign ${campaignArg}; ${n(without.length)} cannot get one (not active creators on the roster): ${shown}${without.length > 10 ? ", …" : ""}.`,
        o.unassignable
          ? `Their externalIds are in ${o.unassignable}.`
          : 'Check them with "partner-cli roster get EXTERNAL_ID"; add --unassignable FILE to get the whole list.',
      );
    }
  }
  if (o.unassignable) await writeIds(ctx, o.unassignable, []);
  if (o.stdout !== false && ctx.io.json)
    ctx.io.outJson({
      job: null,
      selection: null,
      summary: { assigned: 0, failed: 0, unassignable: 0, alreadyAssigned: selected },
    });
  ctx.io.err(`Nothing to do: ${what} already have a link on campaign ${campaignArg}. No job was queued.`);
  return true;
}

/** --unassignable FILE when no job ran: the creators left without a link (reason unknown here). */
async function writeIds(ctx: Context, file: string, ids: string[]): Promise<void> {
  const { openCsvSink } = await import("../../csv/write.js");
  const sink = await openCsvSink(file, ["externalId", "reason"], ctx.io.stdout);
  try {
    await sink.write(ids.map((id) => [id, ""]));
    await sink.commit();
  } catch (err) {
    await sink.abort();
    throw err;
  }
}

/** 400 (nothing to assign) with the next step; 409s are explainLinkConflict's. */
function explainQueueError(err: unknown, campaignArg: string): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.status === 400) {
    // The CLI builds a valid body, so a 400 here is the service's "no new links can be assigned".
    // The details often repeat the message (in another case): print each text once.
    const said = err.message.toLowerCase();
    const reasons = [...new Set(Object.values(err.details ?? {}).flat())].filter(
      (m) => !said.includes(m.toLowerCase().replace(/\.$/, "")),
    );
    const detail = reasons.length ? ` (${reasons.join("; ")})` : "";
    return new NothingToAssign(
      `${err.message}${detail}`,
      `Nothing was queued: only active creators on the roster get links. See "partner-cli roster list --active true" and "partner-cli links list ${shellWord(campaignArg)}".`,
    );
  }
  return err;
}
