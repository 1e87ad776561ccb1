// `completion bash|zsh|fish` prints scripts generated from the command tree.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { runIn } from "./run-helper.js";
import { allCommands, program } from "./tree.js";

const commands = allCommands(program());
const scripts: Record<string, string> = {};
const dir = mkdtempSync(join(tmpdir(), "pcli-completion-"));
const has = (bin: string) => spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0;

beforeAll(async () => {
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await runIn(["completion", shell]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    scripts[shell] = r.stdout;
    writeFileSync(join(dir, `partner-cli.${shell}`), r.stdout);
  }
});

/** Runs the bash completion function for a command line whose last word is being completed. */
function bashComplete(words: string[]): string[] {
  const script = `
source ${JSON.stringify(join(dir, "partner-cli.bash"))}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")})
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
_partner_cli
printf '%s\\n' "\${COMPREPLY[@]}"
`;
  return execFileSync("bash", ["-c", script], { encoding: "utf8" }).split("\n").filter(Boolean);
}

describe("completion scripts", () => {
  test("bash: every noun, verb and alias is in the script, and bash -n accepts it", () => {
    const s = scripts.bash!;
    for (const { path, cmd } of commands) {
      const parent = path.length === 1 ? "root" : path.slice(0, -1).join(".");
      for (const word of [cmd.name(), ...cmd.aliases()]) expect(s).toContain(`"${parent} ${word}") node=`);
    }
    expect(spawnSync("bash", ["-n", join(dir, "partner-cli.bash")]).status).toBe(0);
    expect(s).toContain("complete -o default -F _partner_cli partner-cli");
  });

  test("bash: completes nouns, verbs, flags and flag choices from where the cursor is", () => {
    const nouns = bashComplete(["partner-cli", ""]);
    for (const c of commands.filter((c) => c.path.length === 1)) expect(nouns).toContain(c.path[0]);
    expect(bashComplete(["partner-cli", "prof"])).toEqual(["profiles", "profile"]);
    expect(bashComplete(["partner-cli", "profiles", ""])).toEqual([
      "list",
      "ls",
      "use",
      "show",
      "remove",
      "rm",
    ]);
    // A global option's value is skipped, an alias leads to the same place.
    expect(bashComplete(["partner-cli", "--profile", "prod", "profile", "r"])).toEqual(["remove", "rm"]);
    expect(bashComplete(["partner-cli", "login", "--api"])).toEqual(["--api-key-stdin"]);
    expect(bashComplete(["partner-cli", "profiles", "list", "--j"])).toEqual(["--json"]);
    expect(bashComplete(["partner-cli", "completion", "--he"])).toEqual(["--help"]);
  });

  test("bash: an option with fixed choices completes them", () => {
    // Find any option in the tree with choices (other commands add them; skip when none exist).
    for (const { path, cmd } of commands) {
      const o = cmd.options.find((o) => o.required && o.argChoices?.length && o.long);
      if (!o) continue;
      const got = bashComplete(["partner-cli", ...path, o.long!, ""]);
      expect(got).toEqual(o.argChoices);
      return;
    }
  });

  test("zsh and fish: every noun, verb and alias is in the script", () => {
    for (const shell of ["zsh", "fish"]) {
      const s = scripts[shell]!;
      for (const { path, cmd } of commands) {
        const parent = path.length === 1 ? "root" : path.slice(0, -1).join(".");
        for (const word of [cmd.name(), ...cmd.aliases()]) {
          expect(s, `${shell}: ${path.join(" ")}`).toContain(
            shell === "zsh" ? `"${parent} ${word}") node=` : `'${parent} ${word}'`,
          );
        }
      }
    }
    expect(scripts.zsh).toMatch(/^#compdef partner-cli\n/);
    expect(scripts.zsh).toContain("'--api-key-stdin:read the key from stdin");
    expect(scripts.fish).toContain(
      "complete -c partner-cli -n 'test (__partner_cli_node) = login' -l api-key-stdin",
    );
    expect(scripts.fish).toContain("-a profiles -d ");
  });

  test.runIf(has("zsh"))("zsh -n accepts the zsh script", () => {
    expect(spawnSync("zsh", ["-n", join(dir, "partner-cli.zsh")]).status).toBe(0);
  });

  test.runIf(has("fish"))("fish -n accepts the fish script", () => {
    expect(spawnSync("fish", ["-n", join(dir, "partner-cli.fish")]).status).toBe(0);
  });

  test("an unknown shell is a usage error", async () => {
    const r = await runIn(["completion", "tcsh"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("bash, zsh, fish");
  });
});
