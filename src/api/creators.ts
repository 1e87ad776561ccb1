import { ApiError } from "../errors.js";
import { type BatchResult, type Creator, looseCreators } from "../spec/creators.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";
import type { Page } from "./paging.js";

export interface CreatorListQuery {
  active?: boolean | undefined;
  updatedSince?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export function listCreators(c: ApiClient, q: CreatorListQuery): Promise<Page<Creator>> {
  return c.call({
    method: "GET",
    path: "/creators",
    query: { ...q },
    retry: "read",
    schema: looseCreators.CreatorPage as never,
  });
}

export function getCreator(c: ApiClient, externalId: string): Promise<Creator> {
  return c.call({
    method: "GET",
    path: `/creators/${seg(externalId)}`,
    retry: "read",
    schema: looseCreators.Creator as never,
  });
}

export interface CreatorPut {
  name?: string | null | undefined;
  email?: string | null | undefined;
  handle?: string | null | undefined;
  active?: boolean | undefined;
}

/** PUT upsert. Safe to repeat; after a 500 the creator is read back, then the PUT is repeated. */
export async function putCreator(
  c: ApiClient,
  externalId: string,
  body: CreatorPut,
): Promise<{ creator: Creator; created: boolean }> {
  const res = await c.send<Creator>({
    method: "PUT",
    path: `/creators/${seg(externalId)}`,
    body,
    retry: "idempotent",
    schema: looseCreators.Creator as never,
    recover: async () => {
      try {
        await getCreator(c, externalId);
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 404)) throw e;
      }
      return "retry";
    },
  });
  return { creator: res.body, created: res.status === 201 };
}

export interface BatchCreator extends CreatorPut {
  externalId: string;
}

/**
 * POST /creators/batch: an upsert, so it is repeated after a 500 (rows saved before report
 * `unchanged`). `onRepeat` is told each time the batch is sent again after an uncertain outcome.
 */
export function batchCreators(
  c: ApiClient,
  creators: BatchCreator[],
  opts: { onRepeat?: () => void; onRetry?: (info: { status: number | undefined }) => void } = {},
): Promise<BatchResult> {
  return c.call({
    method: "POST",
    path: "/creators/batch",
    body: { creators },
    retry: "idempotent",
    schema: looseCreators.BatchResult as never,
    onRetry: opts.onRetry,
    recover: async () => {
      opts.onRepeat?.();
      return "retry";
    },
  });
}
