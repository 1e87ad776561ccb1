// roster list: one page (default) or every page (--all) of GET /creators.
import { listCreators } from "../../api/creators.js";
import { allPages } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { listWriter, printList } from "../../io/render.js";
import { LIMITS } from "../../spec/limits.js";
import { CREATOR_COLUMNS, parseUpdatedSince } from "./shared.js";

export interface ListOptions {
  /** --active true|false, parsed by the declaration (src/cli/define.ts parseBoolArg). */
  active?: boolean | undefined;
  updatedSince?: string | undefined;
  all?: boolean | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export async function rosterListRun(opts: ListOptions, ctx: Context): Promise<void> {
  const active = opts.active;
  const updatedSince = parseUpdatedSince(opts.updatedSince);
  if (opts.all && opts.page !== undefined)
    throw new UsageError("--all reads every page; leave out --page (or leave out --all).");
  const pageSize = opts.pageSize ?? (opts.all ? LIMITS.pageSizeMax : LIMITS.pageSizeDefault);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIMITS.pageSizeMax)
    throw new UsageError(`--page-size must be a whole number from 1 to ${LIMITS.pageSizeMax}.`);
  const page = opts.page ?? 0;
  if (!Number.isInteger(page) || page < 0) throw new UsageError("--page must be a whole number from 0.");
  const api = await ctx.api();
  const io = ctx.io;
  const fetchPage = (p: number) => listCreators(api, { active, updatedSince, page: p, pageSize });

  if (!opts.all) {
    const res = await fetchPage(page);
    printList(io, res.items, CREATOR_COLUMNS, "No creators match.");
    const shownTo = res.page * res.pageSize + res.items.length;
    if (res.totalCount > shownTo) {
      io.err(
        `Showing ${res.items.length ? res.page * res.pageSize + 1 : 0}-${shownTo} of ${res.totalCount} (page ${res.page}); use --page ${res.page + 1} or --all for more.`,
      );
    }
    return;
  }

  // --all: JSON, NDJSON, TSV and CSV stream page by page; a terminal table needs every row first.
  const list = listWriter(io, CREATOR_COLUMNS);
  for await (const p of allPages(fetchPage)) list.rows(p.items);
  const count = list.end("No creators match.");
  if (!io.json) io.err(`${count} creator${count === 1 ? "" : "s"}.`);
}
