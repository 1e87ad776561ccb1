import { profileView } from "../../config/profiles.js";
import type { Context } from "../../context.js";
import { type LimitOnly, printSome } from "../shared/list.js";

export async function profilesListRun(o: LimitOnly, ctx: Context): Promise<void> {
  const data = await (await ctx.config()).read();
  const rows = Object.keys(data.profiles)
    .sort()
    .map((name) => profileView(name, data.profiles[name]!, data.currentProfile === name));
  printSome(
    ctx.io,
    rows,
    [
      { header: "current", value: (r) => (r.current ? "*" : "") },
      { header: "name", value: (r) => r.name },
      { header: "baseUrl", value: (r) => r.baseUrl },
      { header: "organization", value: (r) => r.organization?.name },
      { header: "key", value: (r) => r.apiKey },
      { header: "canWrite", value: (r) => r.canWrite },
    ],
    {
      limit: o.limit,
      noun: "profiles",
      emptyNote:
        'No profiles are stored; run "partner-cli login" (until then commands use the embedded sandbox at a terminal, or with --sandbox).',
    },
  );
}
