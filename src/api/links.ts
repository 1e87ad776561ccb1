// Share links and assignment jobs (under /campaigns/{campaignId}): one function per endpoint, each
// with its retry class (spec: Share links and assignments; Errors, case-specific rules 3 and 5).
import { CliError } from "../errors.js";
import {
  type AssignmentAccepted,
  type AssignmentJob,
  type AssignmentRequest,
  looseLinks,
  type ShareLink,
} from "../spec/links.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";
import type { Page } from "./paging.js";

const base = (campaignId: string) => `/campaigns/${seg(campaignId)}`;

export interface LinkListQuery {
  active?: boolean | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export function listLinks(c: ApiClient, campaignId: string, q: LinkListQuery): Promise<Page<ShareLink>> {
  return c.call({
    method: "GET",
    path: `${base(campaignId)}/creators`,
    query: { ...q },
    retry: "read",
    schema: looseLinks.ShareLinkPage as never,
  });
}

export function getLink(c: ApiClient, campaignId: string, externalId: string): Promise<ShareLink> {
  return c.call({
    method: "GET",
    path: `${base(campaignId)}/creators/${seg(externalId)}`,
    retry: "read",
    schema: looseLinks.ShareLink as never,
  });
}

/**
 * POST .../creators/{externalId}, retry class "idempotent": repeating returns the existing link
 * (200) with its status kept, so after a 500 or a lost answer the create is simply repeated.
 * `created` is true for a 201; after such a repeat a link this very call created reports false.
 */
export async function createLink(
  c: ApiClient,
  campaignId: string,
  externalId: string,
): Promise<{ link: ShareLink; created: boolean }> {
  const res = await c.send<ShareLink>({
    method: "POST",
    path: `${base(campaignId)}/creators/${seg(externalId)}`,
    retry: "idempotent",
    schema: looseLinks.ShareLink as never,
    recover: async () => "retry",
  });
  return { link: res.body, created: res.status === 201 };
}

/**
 * PATCH .../creators/{externalId} {active}, retry class "idempotent" (an absolute value). After a
 * 500 the link is read back: already in the wanted state → done, else the PATCH is repeated.
 */
export function setLinkActive(
  c: ApiClient,
  campaignId: string,
  externalId: string,
  active: boolean,
): Promise<ShareLink> {
  return c.call({
    method: "PATCH",
    path: `${base(campaignId)}/creators/${seg(externalId)}`,
    body: { active },
    retry: "idempotent",
    schema: looseLinks.ShareLink as never,
    recover: async () => {
      const now = await getLink(c, campaignId, externalId);
      return now.active === active ? { value: now } : "retry";
    },
  });
}

/** The outcome of a queue request is unknown (500, reset or timeout after it was sent). */
class UncertainQueueError extends CliError {}

/**
 * POST .../assignments, retry class "create". Failures that prove nothing was queued (429, 502,
 * 503, a refused connection) are repeated. When the answer is lost after the request was sent
 * (500, reset, timeout) we do NOT repeat: the job id only comes in the 202, no endpoint lists a
 * campaign's jobs, and the spec warns that "retrying a queue call without first reading the job
 * can queue another job". A job that is still queued or running makes a repeat answer 409 (which
 * names it), but one that already finished would let a blind repeat queue a second job. So the
 * recovery stops with a clear error (exit 1) that says what to do: run the same command again
 * (creators who already have a link are skipped; a running job answers 409 naming itself).
 */
export function queueAssignment(
  c: ApiClient,
  campaignId: string,
  request: AssignmentRequest,
  campaignArg: string,
): Promise<AssignmentAccepted> {
  return c.call({
    method: "POST",
    path: `${base(campaignId)}/assignments`,
    body: request.scope === "roster" ? { scope: "roster" } : { externalIds: request.externalIds },
    retry: "create",
    schema: looseLinks.AssignmentAccepted as never,
    recover: async () => {
      throw new UncertainQueueError(
        "The service's answer to the assignment request was lost, so it is not known whether a job was queued.",
        `Check before repeating: "partner-cli links list ${campaignArg}" shows the links assigned so far. Running the same "links assign" again is safe: creators who already have a link are skipped, and if a job is still running the service refuses with 409 and names it (follow it with "partner-cli links job ${campaignArg} JOB_ID --wait").`,
      );
    },
  });
}

export function getAssignmentJob(c: ApiClient, campaignId: string, jobId: string): Promise<AssignmentJob> {
  return c.call({
    method: "GET",
    path: `${base(campaignId)}/assignments/${seg(jobId)}`,
    retry: "read",
    schema: looseLinks.AssignmentJob as never,
  });
}
