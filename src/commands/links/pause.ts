// links pause CAMPAIGN EXTERNAL_ID: pause one creator's link (handed-out codes keep working).
import type { Context } from "../../context.js";
import type { LinkOptions } from "./link.js";
import { switchLink } from "./set-active.js";

export async function linksPauseRun(o: LinkOptions, ctx: Context): Promise<void> {
  await switchLink(o, false, ctx);
}
