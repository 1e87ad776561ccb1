// `completion bash|zsh|fish` prints scripts generated from the command tree.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { BIN } from "../helpers/cli.js";
import { bashCompletionScript, zshCompletionScript } from "./shells.js";
import { tempDir } from "../helpers/sandbox.js";
import { runIn } from "../helpers/run.js";
import { allCommands, program } from "./tree.js";
import { useSandbox } from "../helpers/harness.js";

const commands = allCommands(program());
const scripts: Record<string, string> = {};
const dir = mkdtempSync(join(tmpdir(), "pcli-completion-"));
const has = (bin: string) => spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0;

const box = useSandbox();

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
function bashComplete(words: string[], env?: NodeJS.ProcessEnv): string[] {
  const script = bashCompletionScript(join(dir, "partner-cli.bash"), words);
  return execFileSync("bash", ["-c", script], { encoding: "utf8", env }).split("\n").filter(Boolean);
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
    expect(bashComplete(["partner-cli", "profiles", "list", "--js"])).toEqual(["--json"]);
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

  test("bash: --profile and profiles use/show/remove complete the stored profile names", async () => {
    // The script asks `partner-cli profiles list`; put the built bin on PATH under that name.
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "partner-cli"), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`, {
      mode: 0o755,
    });
    const cfg = tempDir("pcli-completion-cfg-");
    await runIn(["login", "--profile", "prod", "--base-url", box.url, "--api-key-stdin"], {
      env: { PARTNER_CLI_CONFIG_DIR: cfg },
      stdin: box.writeKey,
    });
    await runIn(["login", "--profile", "staging", "--base-url", box.url, "--api-key-stdin"], {
      env: { PARTNER_CLI_CONFIG_DIR: cfg },
      stdin: box.writeKey,
    });
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, PARTNER_CLI_CONFIG_DIR: cfg };
    expect(bashComplete(["partner-cli", "--profile", ""], env)).toEqual(["prod", "staging"]);
    expect(bashComplete(["partner-cli", "me", "--profile", "st"], env)).toEqual(["staging"]);
    expect(bashComplete(["partner-cli", "profiles", "use", ""], env)).toEqual(["prod", "staging"]);
    expect(bashComplete(["partner-cli", "profiles", "rm", "p"], env)).toEqual(["prod"]);
    expect(scripts.zsh).toContain("_partner_cli_profiles");
    expect(scripts.fish).toContain("-l profile -x -a '(__partner_cli_profiles)'");
  }, 120_000);

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

  test.runIf(has("zsh"))("zsh -n accepts the zsh script, and it walks the tree like the bash one", () => {
    expect(spawnSync("zsh", ["-n", join(dir, "partner-cli.zsh")]).status).toBe(0);
    // Stand-ins for zsh's completion builtins that print the candidates they are given.
    const harness = zshCompletionScript(join(dir, "partner-cli.zsh"), "_partner_cli");
    const zsh = (...words: string[]) =>
      execFileSync("zsh", ["-c", harness, "zsh", ...words], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean);
    expect(zsh("partner-cli", "--profile", "x", "profile", "r")).toEqual([
      "list",
      "ls",
      "use",
      "show",
      "remove",
      "rm",
    ]);
    expect(zsh("partner-cli", "login", "--api")).toContain("--api-key-stdin");
    // A free argument falls back to file completion; the shell argument completes its choices.
    expect(zsh("partner-cli", "roster", "import", "")).toEqual(["<default>"]);
    expect(zsh("partner-cli", "completion", "")).toEqual(["bash", "zsh", "fish", "powershell"]);
  });

  test.runIf(has("fish"))("fish -n accepts the fish script, and fish completes from it", () => {
    const file = join(dir, "partner-cli.fish");
    expect(spawnSync("fish", ["-n", file]).status).toBe(0);
    const fish = (line: string) =>
      execFileSync("fish", ["-c", `source ${JSON.stringify(file)}; complete -C ${JSON.stringify(line)}`], {
        encoding: "utf8",
      })
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[0]);
    expect(fish("partner-cli prof")).toEqual(["profile", "profiles"]);
    expect(fish("partner-cli --profile x profile r")).toEqual(["remove", "rm"]);
    expect(fish("partner-cli login --api")).toEqual(["--api-key-stdin"]);
  });

  test("an unknown shell is a usage error", async () => {
    const r = await runIn(["completion", "tcsh"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("bash, zsh, fish");
  });
});
