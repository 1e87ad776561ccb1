// The spec's paging rules: pageSize default 50, >200 → 200, <=0 → 50; negative page → 0.
import { LIMITS } from "../spec/limits.js";
import { invalid } from "./errors.js";
import type { PageQuery, Table } from "./db.js";

export interface PageParams {
  page: number;
  pageSize: number;
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === "") return undefined;
  const n = Number(raw);
  if (!/^[-+]?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n))
    throw invalid(`${name} must be an integer.`, { [name]: ["must be an integer"] });
  return n;
}

export function pageParams(q: URLSearchParams): PageParams {
  let page = intParam(q, "page") ?? 0;
  let pageSize = intParam(q, "pageSize") ?? LIMITS.pageSizeDefault;
  if (page < 0) page = 0;
  if (pageSize <= 0) pageSize = LIMITS.pageSizeDefault;
  if (pageSize > LIMITS.pageSizeMax) pageSize = LIMITS.pageSizeMax;
  return { page, pageSize };
}

export function paginate<T>(
  all: readonly T[],
  p: PageParams,
): { items: T[]; page: number; pageSize: number; totalCount: number } {
  const start = p.page * p.pageSize;
  return {
    items: all.slice(start, start + p.pageSize),
    page: p.page,
    pageSize: p.pageSize,
    totalCount: all.length,
  };
}

/**
 * A page of a table's records in key order (the order of every list of the API: each sorts by the id
 * its records are keyed by), filtered on its indexed columns: only the page's records are read.
 */
export function pageByKey<V>(
  table: Table<V>,
  p: PageParams,
  filter: Omit<PageQuery, "offset" | "limit"> = {},
): { items: V[]; page: number; pageSize: number; totalCount: number } {
  const { items, totalCount } = table.page({ ...filter, offset: p.page * p.pageSize, limit: p.pageSize });
  return { items, page: p.page, pageSize: p.pageSize, totalCount };
}

/** Parses a boolean query parameter ("true"/"false"); anything else is a 400. */
export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const raw = q.get(name);
  if (raw === null || raw === "") return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw invalid(`${name} must be true or false.`, { [name]: ["must be true or false"] });
}

/** Parses a timestamp query parameter; a bad one is a 400. */
export function timestampParam(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === "") return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(raw);
  // Date.parse rolls 2024-02-30 over into March: check the calendar day exists.
  const dayExists =
    m !== null &&
    new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).getUTCDate() === Number(m[3]);
  const ms = m && dayExists ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(ms))
    throw invalid(`${name} must be an ISO 8601 timestamp.`, { [name]: ["must be an ISO 8601 timestamp"] });
  return ms;
}
