// The answer of `__complete` from the completion model alone: what the last word can be. complete.ts
// (the command) and fast.ts (bin/'s answer from the model written at build time) both print it.
import {
  allNodes,
  type CompletionNode,
  type CompletionOption,
  flagsOf,
  optionsAt,
  type ValueSource,
} from "./tree.js";

export interface Candidate {
  value: string;
  description: string;
}

/** What the last word can be: fixed candidates, or values to fetch. */
export type Answer = { candidates: Candidate[] } | { source: ValueSource };

function valueOption(node: CompletionNode, root: CompletionNode, word: string): CompletionOption | undefined {
  return optionsAt(node, root).find((o) => o.takesValue && flagsOf(o).includes(word));
}

export const words = (values: string[], description = ""): Candidate[] =>
  values.map((value) => ({ value, description }));

/** Walks the words typed so far through the tree, then answers for the last one. */
export function completeWords(root: CompletionNode, typed: string[]): Answer {
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
function helpWords(root: CompletionNode, path: string[]): Candidate[] {
  const at = allNodes(root).find((n) => n.path.join(" ") === path.join(" "));
  if (!at) return [];
  const out = at.children
    .filter((c) => c.id !== "help")
    .map((c) => ({ value: c.name, description: c.description }));
  if (at === root) out.push(...words(root.topics, "help topic"));
  return out;
}

/** The lines `__complete` prints: the candidates starting with `cur`, as "value<TAB>description" ("" for none). */
export function candidateLines(candidates: Candidate[], cur: string): string {
  const lines = candidates
    .filter((c) => c.value.startsWith(cur))
    .map((c) => (c.description ? `${c.value}\t${c.description}` : c.value));
  return lines.length ? `${lines.join("\n")}\n` : "";
}
