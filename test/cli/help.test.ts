// Every command in the tree, nouns included, has a description and examples, and `--help` on each exits 0.
import { describe, expect, test } from "vitest";
import { examplesOf } from "../../src/cli/define.js";
import { runIn } from "../helpers/run.js";
import { allCommands, program } from "./tree.js";

const commands = allCommands(program());

describe("help for every command", () => {
  test("the tree has the identity, profiles and completion commands", () => {
    const names = commands.map((c) => c.path.join(" "));
    for (const n of [
      "login",
      "logout",
      "me",
      "profiles list",
      "profiles use",
      "profiles show",
      "profiles remove",
      "completion",
    ])
      expect(names).toContain(n);
  });

  test("every command has a description", () => {
    const missing = commands.filter((c) => !c.cmd.description().trim()).map((c) => c.path.join(" "));
    expect(missing, `commands without a description: ${missing.join(", ")}`).toEqual([]);
  });

  test("every command, nouns included, has at least one example, and every example names partner-cli", () => {
    const missing = commands.filter((c) => examplesOf(c.cmd).length === 0).map((c) => c.path.join(" "));
    expect(
      missing,
      `commands without examples (use examples() from src/cli/define.ts): ${missing.join(", ")}`,
    ).toEqual([]);
    const odd = commands.flatMap((c) => examplesOf(c.cmd).filter((e) => !e.includes("partner-cli")));
    expect(odd, "examples should show a partner-cli command line").toEqual([]);
  });

  test.each(commands.map((c) => [c.path.join(" "), c.path] as const))(
    "%s --help exits 0 with examples",
    async (_n, path) => {
      const r = await runIn([...path, "--help"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("Usage: partner-cli");
      expect(r.stdout).toContain("Examples:");
      expect(r.stderr).toBe("");
    },
  );

  test("the top-level --help exits 0 and lists every noun", async () => {
    const r = await runIn(["--help"]);
    expect(r.exitCode).toBe(0);
    for (const c of commands.filter((c) => c.path.length === 1)) expect(r.stdout).toContain(c.path[0]);
  });
});
