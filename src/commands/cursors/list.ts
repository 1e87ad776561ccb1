// cursors list: the saved cursors of this config dir, a row per checkpoint, with what they feed.
import type { Context } from "../../context.js";
import { type LimitOnly, printSome } from "../shared/list.js";
import { COLUMNS, rowsFor } from "./rows.js";

export async function cursorsListRun(o: LimitOnly, ctx: Context): Promise<void> {
  printSome(ctx.io, await rowsFor(ctx), COLUMNS, {
    limit: o.limit,
    noun: "cursors",
    emptyNote: `No saved cursors in ${ctx.configDir()} yet.`,
  });
}
