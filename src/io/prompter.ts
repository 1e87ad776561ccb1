// Prompts on the terminal (stdin in, stderr out), through @inquirer/prompts, loaded only when asked.
// Tests pass a scripted Prompter instead.
import { CancelledError } from "../errors.js";
import type { Io } from "./io.js";

export interface Choice<T> {
  name: string;
  value: T;
  description?: string | undefined;
  disabled?: boolean | string | undefined;
}

export interface Prompter {
  input(o: {
    message: string;
    default?: string | undefined;
    validate?: ((v: string) => true | string) | undefined;
  }): Promise<string>;
  password(o: { message: string }): Promise<string>;
  confirm(o: { message: string; default?: boolean | undefined }): Promise<boolean>;
  select<T>(o: { message: string; choices: Choice<T>[]; default?: T | undefined }): Promise<T>;
}

export function inquirerPrompter(io: Io): Prompter {
  const ctx = {
    input: io.stdin as NodeJS.ReadableStream,
    output: io.stderr as NodeJS.WritableStream,
    clearPromptOnDone: false,
  };
  const guard = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (err) {
      if ((err as Error).name === "ExitPromptError" || (err as Error).name === "AbortPromptError") {
        throw new CancelledError("Cancelled.");
      }
      throw err;
    }
  };
  const load = () => import("@inquirer/prompts");
  return {
    async input(o) {
      const { input } = await load();
      return guard(input({ message: o.message, default: o.default, validate: o.validate }, ctx));
    },
    async password(o) {
      const { password } = await load();
      return guard(password({ message: o.message, mask: "*" }, ctx));
    },
    async confirm(o) {
      const { confirm } = await load();
      return guard(confirm({ message: o.message, default: o.default }, ctx));
    },
    async select(o) {
      const { select } = await load();
      return guard(
        select(
          {
            message: o.message,
            choices: o.choices.map((c) => ({
              name: c.name,
              value: c.value,
              description: c.description,
              disabled: c.disabled,
            })),
            default: o.default,
            pageSize: 12,
          },
          ctx,
        ),
      );
    },
  };
}
