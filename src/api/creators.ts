import { ApiError } from "../errors.js";
import { type BatchResult, type Creator, looseCreators } from "../spec/creators.js";
import type { ApiClient } from "./client.js";
import { dateHeader, seg } from "./client.js";
import type { Page } from "./paging.js";
import { isRecord, keyCount } from "../spec/records.js";

export interface CreatorListQuery {
  active?: boolean | undefined;
  updatedSince?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

/** A page of the roster, with the service's time of the answer (`serviceDate`, from its Date header). */
export async function listCreators(c: ApiClient, q: CreatorListQuery): Promise<Page<Creator>> {
  const res = await c.send<Page<Creator>>({
    method: "GET",
    path: "/creators",
    query: { ...q },
    retry: "read",
    schema: looseCreators.CreatorPage as never,
  });
  return { ...res.body, serviceDate: dateHeader(res.headers) };
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

// ---- the batch answer check ----
// An import of a million rows takes a thousand answers of 1,000 row outcomes; zod's loose parse
// copies every outcome object. This check accepts an answer only when it and every outcome have
// exactly the fields of the schema, with their types and the spec's outcome words (the common case),
// and returns it as parsed (what zod's loose parse would give, field for field); anything else (an
// unknown field or outcome word, a missing or mistyped field) goes to zod itself, which accepts
// unknown fields and values as the spec asks, or says what does not match.
// test/api/batch-answer-check.test.ts compares both.

const int = (x: unknown) => Number.isSafeInteger(x);
const OUTCOMES = new Set(["added", "updated", "rejected"]);

function plainRow(r: unknown): boolean {
  if (!isRecord(r) || keyCount(r, 4) !== 4) return false;
  if (!int(r.index) || typeof r.externalId !== "string" || !OUTCOMES.has(r.outcome as string)) return false;
  const reasons = r.reasons;
  if (!Array.isArray(reasons)) return false;
  for (let i = 0; i < reasons.length; i++) if (typeof reasons[i] !== "string") return false;
  return true;
}

function plainAnswer(body: unknown): boolean {
  if (!isRecord(body) || keyCount(body, 2) !== 2 || !Array.isArray(body.rows)) return false;
  const s = body.summary;
  if (!isRecord(s) || keyCount(s, 5) !== 5) return false;
  if (!int(s.rows) || !int(s.added) || !int(s.updated) || !int(s.unchanged) || !int(s.rejected)) return false;
  const rows = body.rows;
  for (let i = 0; i < rows.length; i++) if (!plainRow(rows[i])) return false;
  return true;
}

/** The batch answer check: the fast path above, else zod's loose schema (same result, same errors). */
export const batchAnswerSchema = {
  safeParse(body: unknown): ReturnType<typeof looseCreators.BatchResult.safeParse> {
    if (plainAnswer(body)) return { success: true, data: body } as never;
    return looseCreators.BatchResult.safeParse(body);
  },
};

/** The request body of POST /creators/batch is `BATCH_BODY_HEAD`, the items' JSON texts comma-separated, `BATCH_BODY_TAIL`. */
export const BATCH_BODY_HEAD = '{"creators":[';
export const BATCH_BODY_TAIL = "]}";

/** The request body of POST /creators/batch from its items' JSON texts, comma-separated. */
export function batchBody(items: string): string {
  return BATCH_BODY_HEAD + items + BATCH_BODY_TAIL;
}

/**
 * POST /creators/batch: an upsert, so it is repeated after a 500 (rows saved before report
 * `unchanged`). `body`: as `batchBody` makes it (the text, or its UTF-8 bytes). `onRepeat` is told each
 * time the batch is sent again after an uncertain outcome.
 */
export function batchCreators(
  c: ApiClient,
  body: string | Uint8Array,
  opts: { onRepeat?: () => void; onRetry?: (info: { status: number | undefined }) => void } = {},
): Promise<BatchResult> {
  return c.call({
    method: "POST",
    path: "/creators/batch",
    bodyJson: body,
    retry: "idempotent",
    schema: batchAnswerSchema as never,
    onRetry: opts.onRetry,
    recover: async () => {
      opts.onRepeat?.();
      return "retry";
    },
  });
}
