// `partner-cli __complete -- WORD...` (hidden, like gh's): the candidates for the last word of a
// command line, one per line as "value<TAB>description". The PowerShell script asks it for
// everything; the bash, zsh and fish scripts ask it for the values only it can know (stored
// profile names, campaign references of the current profile). Never fails: no answer is no lines.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context.js";
import { allNodes, type CommandNode, flagsOf, type OptionInfo, optionsAt, type ValueSource } from "./tree.js";

export interface CompletionCompleteOptions {
  /** The words after the program's name; the last is the one being completed ("" for a new word). */
  words: string[];
  tree: CommandNode;
}

export interface Candidate {
  value: string;
  description: string;
}

/** What the last word can be: fixed candidates, or values to fetch. */
export type Answer = { candidates: Candidate[] } | { source: ValueSource };

function valueOption(node: CommandNode, root: CommandNode, word: string): OptionInfo | undefined {
  return optionsAt(node, root).find((o) => o.takesValue && flagsOf(o).includes(word));
}

const words = (values: string[], description = ""): Candidate[] =>
  values.map((value) => ({ value, description }));

/** Walks the words typed so far through the tree, then answers for the last one. */
function completeWords(root: CommandNode, typed: string[]): Answer {
  const cur = typed[typed.length - 1] ?? "";
  let node = root;
  const positionals: string[] = [];
  for (let i = 0; i < typed.length - 1; i++) {
    const w = typed[i]!;
    if (w.startsWith("-")) {
      if (valueOption(node, root, w)) i++;
      continue;
    }
    const child = node.children.find((c) => c.name === w || c.aliases.includes(w));
    if (child && positionals.length === 0) node = child;
    else positionals.push(w);
  }
  const prev = typed.length > 1 ? typed[typed.length - 2]! : "";
  const flag = prev.startsWith("-") ? valueOption(node, root, prev) : undefined;
  if (flag) {
    if (flag.profileValue) return { source: "profiles" };
    if (flag.source) return { source: flag.source };
    return { candidates: words(flag.choices ?? []) };
  }
  if (cur.startsWith("-")) {
    return {
      candidates: optionsAt(node, root).flatMap((o) => words(flagsOf(o), o.description)),
    };
  }
  if (node.children.length && positionals.length === 0) {
    return {
      candidates: node.children.flatMap((c) => [
        { value: c.name, description: c.description },
        ...words(c.aliases, `alias of ${c.name}`),
      ]),
    };
  }
  if (node.id === "help") return { candidates: helpWords(root, positionals) };
  if (positionals.length === 0 && node.argSource) return { source: node.argSource };
  return { candidates: words(node.arguments[positionals.length]?.choices ?? []) };
}

/** After `help`: the commands (and verbs) to ask about, and at the top the help topics. */
function helpWords(root: CommandNode, path: string[]): Candidate[] {
  const at = allNodes(root).find((n) => n.path.join(" ") === path.join(" "));
  if (!at) return [];
  const out = at.children
    .filter((c) => c.id !== "help")
    .map((c) => ({ value: c.name, description: c.description }));
  if (at === root) out.push(...words(root.topics, "help topic"));
  return out;
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
  const lines = candidates
    .filter((c) => c.value.startsWith(cur))
    .map((c) => (c.description ? `${c.value}\t${c.description}` : c.value));
  if (lines.length) ctx.io.out(`${lines.join("\n")}\n`);
}
