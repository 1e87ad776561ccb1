// bin/'s answer to `partner-cli __complete [--new-word] -- WORD...` (what every TAB of the completion
// scripts runs) from the completion model written by `npm run docs` (model.json), without loading the
// program. It answers only what the model alone knows: for stored profile names and campaign
// references, and any other form of the command line, it returns false and bin/ runs the program,
// whose `__complete` (complete.ts) is the reference. test/cli/docs-drift.test.ts holds model.json
// equal to the program's model; test/e2e/complete-fast-path.test.ts holds the two answers equal.
import { candidateLines, completeWords } from "./answer.js";
import model from "./model.json" with { type: "json" };
import type { CompletionNode } from "./tree.js";

/** The words to complete, from `[--new-word] -- WORD...`; undefined for any other form. */
function typedWords(args: string[]): string[] | undefined {
  const newWord = args[0] === "--new-word";
  const rest = newWord ? args.slice(1) : args;
  if (rest[0] !== "--") return undefined;
  return newWord ? [...rest.slice(1), ""] : rest.slice(1);
}

/** Prints the answer and returns true, or returns false (nothing printed) for the program to answer. */
export function completeFast(args: string[], write: (text: string) => void): boolean {
  const typed = typedWords(args);
  if (!typed) return false;
  const answer = completeWords(model as CompletionNode, typed);
  if ("source" in answer) return false;
  const text = candidateLines(answer.candidates, typed[typed.length - 1] ?? "");
  if (text) write(text);
  return true;
}
