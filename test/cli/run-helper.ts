// In-process runs (test/helpers/run.ts) and a scripted prompter for the identity commands.
import type { Prompter } from "../../src/io/prompter.js";

export { type InProcessResult, runIn } from "../helpers/run.js";

/** A prompter that answers from a script and records the questions. */
export function scriptedPrompter(answers: { password?: string[]; confirm?: boolean[] }): Prompter & {
  asked: string[];
} {
  const asked: string[] = [];
  const take = <T>(list: T[] | undefined, kind: string): T => {
    if (!list || list.length === 0) throw new Error(`unexpected ${kind} prompt`);
    return list.shift()!;
  };
  return {
    asked,
    async input(o) {
      asked.push(o.message);
      throw new Error("unexpected input prompt");
    },
    async password(o) {
      asked.push(o.message);
      return take(answers.password, "password");
    },
    async confirm(o) {
      asked.push(o.message);
      return take(answers.confirm, "confirm");
    },
    async select(o) {
      asked.push(o.message);
      throw new Error("unexpected select prompt");
    },
  };
}
