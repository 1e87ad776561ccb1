// The program's command tree for tests that walk it (help, completion, docs).
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { buildProgram } from "../../src/program.js";

export function program(): Command {
  return buildProgram({
    makeContext: () => {
      throw new Error("this test does not run commands");
    },
    streams: { stdout: new PassThrough(), stderr: new PassThrough() },
  });
}

export function isHidden(c: Command): boolean {
  return Boolean((c as unknown as { _hidden?: boolean })._hidden);
}

/** Every visible command below the program, with its path of names. */
export function allCommands(root: Command): { path: string[]; cmd: Command }[] {
  const out: { path: string[]; cmd: Command }[] = [];
  const visit = (cmd: Command, path: string[]) => {
    for (const c of cmd.commands) {
      if (isHidden(c)) continue;
      out.push({ path: [...path, c.name()], cmd: c });
      visit(c, [...path, c.name()]);
    }
  };
  visit(root, []);
  return out;
}
