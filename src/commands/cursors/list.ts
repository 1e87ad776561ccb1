// cursors list: the saved cursors of this config dir, a row per checkpoint, with what they feed.
import type { Context } from "../../context.js";
import { printList } from "../../io/render.js";
import type { NoOptions } from "../shared/run.js";
import { COLUMNS, rowsFor } from "./rows.js";

export async function cursorsListRun(_opts: NoOptions, ctx: Context): Promise<void> {
  printList(ctx.io, await rowsFor(ctx), COLUMNS, `No saved cursors in ${ctx.configDir()} yet.`);
}
