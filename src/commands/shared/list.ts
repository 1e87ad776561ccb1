// The one way a list command reads and prints its items: one page by default, every page with
// --all, at most --limit items in total (from --page on), streamed page by page, and the one page
// hint on stderr when the list printed is not the whole list.
import { type Batch, type CapResult, type Page, pageBatches, takeCapped } from "../../api/paging.js";
import { UsageError } from "../../errors.js";
import { type Column, listWriter, printList } from "../../io/render.js";
import type { Io } from "../../io/types.js";
import { LIMITS } from "../../spec/limits.js";

/** The paging flags of a list: --all, --limit (a total cap), --page (the start page), --page-size. */
export interface ListPaging {
  all?: boolean | undefined;
  limit?: number | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

/** --limit N: a whole number from 1 (commander checks it too; run functions are called directly). */
export function checkLimit(limit: number | undefined): void {
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1))
    throw new UsageError("--limit must be a whole number from 1 (the most items to print).");
}

/**
 * The page to start at and the page size to ask for. --page keeps its meaning whatever else is
 * given (the default page size unless --page-size); otherwise --all asks for the largest pages
 * and --limit for pages of its size, up to the largest, so the cap costs as few requests as it can.
 */
export function pagingOf(o: ListPaging): { start: number; pageSize: number; walk: boolean } {
  checkLimit(o.limit);
  if (o.all && o.page !== undefined)
    throw new UsageError("--all reads every page; leave out --page (or leave out --all).");
  const max = LIMITS.pageSizeMax;
  const start = o.page ?? 0;
  if (!Number.isInteger(start) || start < 0) throw new UsageError("--page must be a whole number from 0.");
  const wanted = o.page !== undefined ? undefined : o.all ? max : o.limit;
  const pageSize = o.pageSize ?? Math.min(wanted ?? LIMITS.pageSizeDefault, max);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > max)
    throw new UsageError(`--page-size must be a whole number from 1 to ${max}.`);
  return { start, pageSize, walk: Boolean(o.all) || o.limit !== undefined };
}

/** "a, b or c". */
function orList(ways: readonly string[]): string {
  return ways.length < 2 ? (ways[0] ?? "") : `${ways.slice(0, -1).join(", ")} or ${ways.at(-1)}`;
}

export interface HintOf {
  /** Position (from 0) of the first item printed in the whole list. */
  first: number;
  /** What the items are, plural ("creators"). */
  noun: string;
  /** The flags that show more, in the order offered ("--page 2", "--limit N", "--all"). */
  ways: readonly string[];
}

/**
 * The page hint, when the list printed was cut: "Showing 1-50 of 1,200 creators (page 0); use
 * --page 1, --limit N or --all for more." Without a known total (a list filtered here), the count.
 */
function pageHint(r: CapResult, h: HintOf & { page?: number | undefined }): string | undefined {
  if (!r.cut) return undefined;
  const n = (v: number) => v.toLocaleString("en-US");
  const span =
    r.total === undefined
      ? `${n(r.shown)} ${h.noun}`
      : `${r.shown ? `${n(h.first + 1)}-${n(h.first + r.shown)}` : "0"} of ${n(r.total)} ${h.noun}`;
  return `Showing ${span}${h.page === undefined ? "" : ` (page ${h.page})`}; use ${orList(h.ways)} for more.`;
}

/** Prints the batches' items (at most `limit`) page by page, then answers what was printed. */
export async function printCapped<T>(
  io: Io,
  batches: AsyncIterable<Batch<T>>,
  columns: readonly Column<T>[],
  o: { limit: number | undefined; emptyNote: string; jsonTail?: () => Record<string, unknown> },
): Promise<CapResult> {
  const list = listWriter(io, columns, o.jsonTail ? "items" : undefined);
  const r = await takeCapped(batches, o.limit, (items) => list.rows(items));
  list.end(o.emptyNote, o.jsonTail?.());
  return r;
}

export interface PagedList<T> {
  /** One page of the list from the API. */
  fetchPage: (page: number, pageSize: number) => Promise<Page<T>>;
  columns: readonly Column<T>[];
  noun: string;
  emptyNote: string;
  /** Items kept of each page, filtered here (not by the API): the list's total is then unknown. */
  keep?: ((item: T) => boolean) | undefined;
  /** The command has no --page flag (the hint does not offer it). */
  noPageFlag?: boolean;
}

/**
 * A paged list with the paging flags: the default page, --all, or at most --limit items across as
 * many pages as it takes (from --page). JSON, NDJSON, TSV and CSV are written as pages arrive; the
 * walk stops at the cap. The hint goes to stderr when more items exist than were printed.
 */
export async function printPaged<T>(io: Io, o: ListPaging, list: PagedList<T>): Promise<CapResult> {
  const { start, pageSize, walk } = pagingOf(o);
  const pages = pageBatches((p) => list.fetchPage(p, pageSize), start, walk);
  const r = await printCapped(io, list.keep ? kept(pages, list.keep) : pages, list.columns, {
    limit: o.limit,
    emptyNote: list.emptyNote,
  });
  const one = !walk;
  const pageFlag = list.noPageFlag ? [] : [one ? `--page ${start + 1}` : "--page P"];
  const ways = one ? [...pageFlag, "--limit N", "--all"] : ["--limit N", ...pageFlag, "--all"];
  const hint = pageHint(r, {
    first: start * pageSize,
    noun: list.noun,
    ways: o.all ? ["--limit N"] : ways,
    page: one && !list.noPageFlag ? start : undefined,
  });
  if (hint) io.err(hint);
  return r;
}

async function* kept<T>(batches: AsyncIterable<Batch<T>>, keep: (item: T) => boolean) {
  for await (const b of batches) yield { items: b.items.filter(keep), more: b.more };
}

/**
 * Items per feed request of an export or sync: --page-size, or the old --limit (hidden, kept for
 * existing cron lines) with a notice; 1000 when neither is given.
 */
export function feedPageSize(
  o: { pageSize?: number | undefined; limit?: number | undefined },
  io: Io,
): number {
  const inRange = (n: number) => Number.isInteger(n) && n >= 1 && n <= LIMITS.feedLimitMax;
  if (o.limit !== undefined && o.pageSize !== undefined)
    throw new UsageError(
      "--limit is the old name of --page-size here; give only --page-size.",
      "Drop --limit: nothing was read or written.",
    );
  const n = o.pageSize ?? o.limit ?? LIMITS.feedLimitMax;
  const flag = o.limit !== undefined ? "--limit" : "--page-size";
  if (!inRange(n)) throw new UsageError(`${flag} must be a whole number from 1 to ${LIMITS.feedLimitMax}.`);
  if (o.limit !== undefined)
    io.err(`Note: --limit here is now --page-size (items per feed request); read as --page-size ${n}.`);
  return n;
}

/**
 * A list read whole (local, or one answer of the API): at most --limit of its rows printed, with the
 * hint when that cut it.
 */
export function printSome<T>(
  io: Io,
  rows: readonly T[],
  columns: readonly Column<T>[],
  o: { limit: number | undefined; noun: string; emptyNote?: string | undefined },
): void {
  checkLimit(o.limit);
  const shown = o.limit === undefined ? rows : rows.slice(0, o.limit);
  printList(io, shown, columns, o.emptyNote);
  const r = { shown: shown.length, cut: shown.length < rows.length, total: rows.length };
  const hint = pageHint(r, { first: 0, noun: o.noun, ways: ["--limit N"] });
  if (hint) io.err(hint);
}

/** The options of a list read whole: only --limit. */
export interface LimitOnly {
  limit?: number | undefined;
}
