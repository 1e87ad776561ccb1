// roster list: one page (default), every page (--all) or at most --limit creators of GET /creators.
import { plural } from "../../io/words.js";
import { listCreators } from "../../api/creators.js";
import type { Context } from "../../context.js";
import { type ListPaging, pagingOf, printPaged } from "../shared/list.js";
import { CREATOR_COLUMNS, parseUpdatedSince } from "./shared.js";

export interface ListOptions extends ListPaging {
  /** --active true|false, parsed by the declaration (src/cli/define.ts parseBoolArg). */
  active?: boolean | undefined;
  updatedSince?: string | undefined;
}

export async function rosterListRun(opts: ListOptions, ctx: Context): Promise<void> {
  const active = opts.active;
  const updatedSince = parseUpdatedSince(opts.updatedSince);
  pagingOf(opts); // bad paging flags are refused before any request
  const api = await ctx.api();
  const r = await printPaged(ctx.io, opts, {
    fetchPage: (page, pageSize) => listCreators(api, { active, updatedSince, page, pageSize }),
    columns: CREATOR_COLUMNS,
    noun: "creators",
    emptyNote: "No creators match.",
  });
  if (opts.all && !r.cut && !ctx.io.json) ctx.io.err(`${plural(r.shown, "creator")}.`);
}
