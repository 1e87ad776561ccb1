// Completion beyond the tree's words: values of --format, --preset, --state and `completion SHELL`,
// help topics, campaign references of the current profile (through the hidden `__complete`), the
// `npx partner-cli` form in bash, zsh and fish, and the PowerShell script. Real shells, the built
// CLI on PATH (and a stand-in `npx` that runs it), a real sandbox.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, test } from "vitest";
import { BIN } from "../helpers/cli.js";
import { bashCompletionScript, zshCompletionScript } from "./shells.js";
import { makeCampaign, SEED } from "../helpers/fixtures.js";
import { tempDir, useSandbox } from "../helpers/harness.js";

const s = useSandbox();
const dir = tempDir("pcli-completion-values-");
// Asynchronous: the sandbox answering the shells runs in this process.
const run = async (file: string, args: string[]) =>
  (await promisify(execFile)(file, args, { encoding: "utf8", env })).stdout.split(/\r?\n/).filter(Boolean);
const has = (bin: string) => spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0;
const scripts: Record<string, string> = {};
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  for (const shell of ["bash", "zsh", "fish", "powershell"]) {
    const r = await s.run(["completion", shell]);
    expect(r.exitCode, r.stderr).toBe(0);
    scripts[shell] = r.stdout;
    writeFileSync(join(dir, `partner-cli.${shell}`), r.stdout);
  }
  // The built CLI as `partner-cli`, and an `npx` that runs it only for `npx --no partner-cli ...`
  // and records that it was asked (the scripts must not download anything).
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "partner-cli"), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`, {
    mode: 0o755,
  });
  writeFileSync(
    join(bin, "npx"),
    `#!/bin/sh\n[ "$1" = --no ] && [ "$2" = partner-cli ] || exit 9\nshift 2\necho ran >> ${JSON.stringify(join(dir, "npx.log"))}\nexec node ${JSON.stringify(BIN)} "$@"\n`,
    { mode: 0o755 },
  );
  env = { ...process.env, ...s.env(), PATH: `${bin}:${process.env.PATH}` };
  await makeCampaign(s, {
    name: "Completion oats",
    baseGs1: SEED.offers.oats,
    dates: { from: 0, through: 20 },
    codeLimit: 100,
    externalReference: "completion-oats",
  });
}, 120_000);

/** The bash completion of a command line (`words`, the last being completed), as the shell offers it. */
function bash(words: string[], fn = "_partner_cli"): Promise<string[]> {
  const script = bashCompletionScript(join(dir, "partner-cli.bash"), words, fn);
  return run("bash", ["-c", script]);
}

describe("values from the tree", () => {
  test("bash: --format, --preset, --state, completion SHELL and help TOPIC", async () => {
    expect(await bash(["partner-cli", "links", "export", "c1", "--format", ""])).toEqual(["csv", "xlsx"]);
    expect(await bash(["partner-cli", "reports", "summary", "--preset", ""])).toEqual([
      "today",
      "7d",
      "30d",
      "90d",
      "this-month",
      "last-month",
    ]);
    expect(await bash(["partner-cli", "redemptions", "list", "--state", "ex"])).toEqual(["excluded"]);
    expect(await bash(["partner-cli", "completion", ""])).toEqual(["bash", "zsh", "fish", "powershell"]);
    expect(await bash(["partner-cli", "completion", "p"])).toEqual(["powershell"]);
    expect(await bash(["partner-cli", "help", "exit"])).toEqual(["exit-codes"]);
    // Only the first positional: a second word of `completion` gets nothing from the list.
    expect(await bash(["partner-cli", "completion", "bash", ""])).toEqual([]);
  });

  test("__complete answers from the same model (what the PowerShell script shows)", async () => {
    const lines = async (...words: string[]) =>
      (await s.run(["__complete", "--", ...words])).stdout.split("\n").filter(Boolean);
    expect(await lines("redemptions", "list", "--state", "")).toEqual(["counted", "excluded", "test_code"]);
    expect(await lines("camp")).toEqual([
      "campaigns\tlist, create and manage campaigns (dates, code limit, commission, status)",
      "campaign\talias of campaigns",
    ]);
    expect((await lines("login", "--api")).map((l) => l.split("\t")[0])).toEqual(["--api-key-stdin"]);
    expect(await lines("completion", "")).toEqual(["bash", "zsh", "fish", "powershell"]);
    // --encoding: every known encoding, not only the examples its description names (issue 26).
    for (const cmd of [
      ["roster", "import"],
      ["links", "assign"],
    ])
      expect(await lines(...cmd, "--encoding", "")).toEqual(
        expect.arrayContaining(["utf-8", "windows-1252", "latin1", "shift_jis", "utf-16le", "gb18030"]),
      );
    const help = (await lines("help", "")).map((l) => l.split("\t")[0]);
    expect(help).toEqual(
      expect.arrayContaining(["campaigns", "environment", "exit-codes", "formats", "sandbox"]),
    );
    const r = await s.run(["__complete", "--new-word", "--", "profiles"]);
    expect(
      r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[0]),
    ).toContain("use");
  });
});

describe("values only the CLI knows", () => {
  test("campaign references of the current credentials: arguments and --campaign", async () => {
    expect(await bash(["partner-cli", "campaigns", "get", "comp"])).toEqual(["completion-oats"]);
    expect(await bash(["partner-cli", "links", "list", ""])).toContain("completion-oats");
    expect(await bash(["partner-cli", "redemptions", "list", "--campaign", "comp"])).toEqual([
      "completion-oats",
    ]);
    // The second positional of `links get` is a creator id, not a campaign.
    expect(await bash(["partner-cli", "links", "get", "completion-oats", ""])).toEqual([]);
  });

  test("without credentials __complete prints nothing, exits 0 and starts no embedded sandbox", async () => {
    const cfg = tempDir("pcli-complete-nocreds-");
    const r = await s.run(["__complete", "--", "campaigns", "get", ""], {
      key: null,
      configDir: cfg,
      env: { PARTNER_BASE_URL: "" },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("");
    expect(existsSync(join(cfg, "state"))).toBe(false);
    expect(existsSync(join(cfg, "sandbox"))).toBe(false);
  });

  test("a service that does not answer gives no candidates, not an error", async () => {
    const r = await s.cli(["__complete", "--", "campaigns", "get", ""], {
      env: { PARTNER_BASE_URL: "http://127.0.0.1:9", PARTNER_RETRY_DEADLINE_MS: "200" },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("");
  }, 30_000);
});

describe("npx partner-cli", () => {
  test("bash: the words after `npx partner-cli` complete as partner-cli's, values through npx", async () => {
    expect(await bash(["npx", "part"], "_partner_cli_npx")).toEqual(["partner-cli"]);
    expect(await bash(["npx", "partner-cli", "prof"], "_partner_cli_npx")).toEqual(["profiles", "profile"]);
    expect(await bash(["npx", "partner-cli", "--profile", "x", "profile", "r"], "_partner_cli_npx")).toEqual([
      "remove",
      "rm",
    ]);
    expect(await bash(["npx", "partner-cli", "completion", ""], "_partner_cli_npx")).toEqual([
      "bash",
      "zsh",
      "fish",
      "powershell",
    ]);
    expect(await bash(["npx", "other-tool", ""], "_partner_cli_npx")).toEqual([]);
    expect(await bash(["npx", "partner-cli", "campaigns", "get", "comp"], "_partner_cli_npx")).toEqual([
      "completion-oats",
    ]);
    expect(existsSync(join(dir, "npx.log"))).toBe(true);
    expect(scripts.bash).toContain("complete -o default -F _partner_cli_npx npx");
  });

  test.runIf(has("zsh"))("zsh: npx partner-cli completes, values through npx", async () => {
    const harness = zshCompletionScript(join(dir, "partner-cli.zsh"), "_partner_cli_npx");
    const zsh = (...words: string[]) => run("zsh", ["-c", harness, "zsh", ...words]);
    expect(await zsh("npx", "partner-cli", "--profile", "x", "profile", "r")).toEqual([
      "list",
      "ls",
      "use",
      "show",
      "remove",
      "rm",
    ]);
    expect(await zsh("npx", "partner-cli", "reports", "summary", "--preset", "")).toContain("last-month");
    expect(await zsh("npx", "partner-cli", "campaigns", "get", "")).toContain("completion-oats");
    expect(await zsh("npx", "other-tool", "")).toEqual(["<default>"]);
    expect(scripts.zsh).toContain("compdef _partner_cli_npx npx");
  });

  test.runIf(has("fish"))("fish: npx partner-cli completes, values through npx", async () => {
    const file = join(dir, "partner-cli.fish");
    expect(spawnSync("fish", ["-n", file]).status).toBe(0);
    const fish = async (line: string) =>
      (await run("fish", ["-c", `source ${JSON.stringify(file)}; complete -C ${JSON.stringify(line)}`])).map(
        (l) => l.split("\t")[0],
      );
    expect(await fish("npx part")).toContain("partner-cli");
    expect(await fish("npx partner-cli prof")).toEqual(["profile", "profiles"]);
    expect(await fish("npx partner-cli completion ")).toEqual(["bash", "fish", "powershell", "zsh"]);
    expect(await fish("partner-cli redemptions list --state ")).toEqual(["counted", "excluded", "test_code"]);
    expect(await fish("partner-cli campaigns get comp")).toEqual(["completion-oats"]);
    expect(await fish("npx partner-cli campaigns get comp")).toEqual(["completion-oats"]);
  });
});

describe("PowerShell", () => {
  test("the script registers a native completer for partner-cli and npx that asks __complete", () => {
    const ps = scripts.powershell!;
    expect(ps).toContain("Register-ArgumentCompleter -Native -CommandName 'partner-cli', 'npx'");
    expect(ps).toContain("__complete @new -- @rest");
    expect(ps).toContain("$run = @('npx', '--no', 'partner-cli')");
  });

  // pwsh is not packaged by Debian; where it is installed this runs the completer for real.
  test.runIf(has("pwsh"))("pwsh completes partner-cli and npx partner-cli", async () => {
    const pwsh = (line: string) =>
      run("pwsh", [
        "-NoProfile",
        "-Command",
        `. ${JSON.stringify(join(dir, "partner-cli.powershell"))}; (TabExpansion2 -inputScript '${line}' -cursorColumn ${line.length}).CompletionMatches | ForEach-Object { $_.CompletionText }`,
      ]);
    expect(await pwsh("partner-cli prof")).toEqual(["profiles", "profile"]);
    expect(await pwsh("npx partner-cli completion ")).toEqual(["bash", "zsh", "fish", "powershell"]);
  });
});
