// bin/partner-cli.js answers `__complete [--new-word] -- WORD...` from dist/complete.js (the completion
// model, src/commands/completion/fast.ts) without loading the program, unless the answer needs stored
// profiles or campaigns. The reference is the program's own `__complete`: for every command and the
// words a TAB asks about there, the fast path prints the same bytes, or leaves the line to the program.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { programTree } from "../../src/cli/tree.js";
import type { Context } from "../../src/context.js";
import { completionCompleteRun } from "../../src/commands/completion/complete.js";
import { completeFast } from "../../src/commands/completion/fast.js";
import { allNodes, flagsOf } from "../../src/commands/completion/tree.js";
import { program } from "../cli/tree.js";
import { BIN } from "../helpers/cli.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox();
const MAIN = join(fileURLToPath(new URL("../../", import.meta.url)), "dist", "main.js");

/** The fast path's answer: the bytes it prints, or undefined when it leaves the line to the program. */
function fast(args: string[]): string | undefined {
  let out = "";
  return completeFast(args.slice(1), (text) => {
    out += text;
  })
    ? out
    : undefined;
}

/** What a TAB asks at each command: its subcommands, its flags, and each of its value flags' values. */
function commandLines(): string[][] {
  const root = programTree(program());
  const lines: string[][] = [];
  for (const n of allNodes(root)) {
    lines.push(["__complete", "--", ...n.path, ""], ["__complete", "--new-word", "--", ...n.path]);
    lines.push(["__complete", "--", ...n.path, "-"]);
    for (const o of n.options.filter((o) => o.takesValue))
      lines.push(["__complete", "--", ...n.path, flagsOf(o)[0]!, ""]);
  }
  // Prefixes, aliases, help topics, a value flag after a positional.
  lines.push(["__complete", "--", "camp"], ["__complete", "--", "help", ""]);
  lines.push(["__complete", "--", "help", "campaigns", ""], ["__complete", "--", "sync", "--to", "x", "--k"]);
  return lines;
}

describe("__complete's fast path", () => {
  test("answers every command's words exactly as __complete does on the program's own tree", async () => {
    const lines = commandLines();
    expect(lines.length).toBeGreaterThan(200);
    const tree = programTree(program());
    const differ: string[] = [];
    let answered = 0;
    for (const line of lines) {
      const mine = fast(line);
      if (mine === undefined) continue;
      let reference = "";
      const newWord = line[1] === "--new-word";
      const words = line.slice(newWord ? 3 : 2);
      // Only io.out is read for a fixed answer (values from profiles or campaigns never reach here).
      const ctx = { io: { out: (t: string) => (reference += t) } } as unknown as Context;
      await completionCompleteRun({ words: newWord ? [...words, ""] : words, tree }, ctx);
      if (mine !== "") answered++;
      if (mine !== reference) differ.push(line.join(" "));
    }
    expect(differ).toEqual([]);
    // Not an empty agreement: every command's flags at least have candidates (free-form values have none).
    expect(answered).toBeGreaterThan(lines.length / 4);
  });

  test("the program's __complete command prints the same, each top-level command's first words", async () => {
    const root = programTree(program());
    for (const n of root.children) {
      for (const line of [
        ["__complete", "--", n.name, ""],
        ["__complete", "--new-word", "--", n.name],
      ]) {
        const reference = await s.run(line);
        expect([reference.exitCode, reference.stdout], line.join(" ")).toEqual([0, fast(line)]);
      }
    }
  });

  test("leaves stored profile names, campaign references and any other form to the program", () => {
    for (const line of [
      ["__complete", "--", "--profile", ""],
      ["__complete", "--", "profiles", "use", "s"],
      ["__complete", "--", "campaigns", "get", ""],
      ["__complete", "offers", "g"],
      ["__complete", "--new-word", "offers"],
    ])
      expect(fast(line), line.join(" ")).toBeUndefined();
  });

  test.skipIf(!existsSync(MAIN))(
    "bin/ prints the fast path's answer, and the program's where it has none",
    async () => {
      const spawned = (args: string[]) =>
        spawnSync(process.execPath, [BIN, ...args], {
          encoding: "utf8",
          env: { ...process.env, ...s.env() },
        });
      for (const line of [
        ["__complete", "--", "campaigns", ""],
        ["__complete", "--new-word", "--", "reports", "creators", "--format"],
        ["__complete", "offers", "g"],
        ["__complete", "--", "--profile", ""],
      ]) {
        const r = spawned(line);
        const reference = await s.run(line);
        expect([r.status, r.stdout, r.stderr], line.join(" ")).toEqual([
          0,
          reference.stdout,
          reference.stderr,
        ]);
      }
    },
  );
});
