// links resume CAMPAIGN EXTERNAL_ID: resume a paused link.
import type { Context } from "../../context.js";
import type { LinkOptions } from "./link.js";
import { switchLink } from "./set-active.js";

export async function linksResumeRun(o: LinkOptions, ctx: Context): Promise<void> {
  await switchLink(o, true, ctx);
}
