// `partner-cli __complete -- WORD...` (hidden, like gh's): the candidates for the last word of a
// command line, one per line as "value<TAB>description". The PowerShell script asks it for
// everything; the bash, zsh and fish scripts ask it for the values only it can know (stored
// profile names, campaign references of the current profile). Never fails: no answer is no lines.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context.js";
import { candidateLines, completeWords, words } from "./answer.js";
import type { CommandNode, ValueSource } from "./tree.js";

export interface CompletionCompleteOptions {
  /** The words after the program's name; the last is the one being completed ("" for a new word). */
  words: string[];
  tree: CommandNode;
}

/** The stored profile names (the config file is only read: a missing one is no profiles). */
async function profileNames(ctx: Context): Promise<string[]> {
  if (!existsSync(join(ctx.configDir(), "config.json"))) return [];
  return Object.keys((await (await ctx.config()).read()).profiles).sort();
}

/** The external references of the first 100 campaigns of the profile's organization (never the embedded sandbox). */
async function campaignReferences(ctx: Context): Promise<string[]> {
  const target = await ctx.localTarget();
  if (!target.baseUrl) return [];
  const { listCampaigns } = await import("../../api/campaigns.js");
  const page = await listCampaigns(await ctx.api(), { pageSize: 100 });
  return page.items.flatMap((c) => (c.externalReference ? [c.externalReference] : []));
}

const FETCH_TIMEOUT_MS = 3000;

async function fetchValues(source: ValueSource, ctx: Context): Promise<string[]> {
  const values = source === "profiles" ? profileNames(ctx) : campaignReferences(ctx);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), FETCH_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([values.catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function completionCompleteRun(opts: CompletionCompleteOptions, ctx: Context): Promise<void> {
  const answer = completeWords(opts.tree, opts.words);
  const cur = opts.words[opts.words.length - 1] ?? "";
  const candidates = "source" in answer ? words(await fetchValues(answer.source, ctx)) : answer.candidates;
  const text = candidateLines(candidates, cur);
  if (text) ctx.io.out(text);
}
