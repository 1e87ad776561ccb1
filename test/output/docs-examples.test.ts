// docs/output.md's examples run as written against the embedded sandbox: every `$ partner-cli ...`
// line of its console blocks is run by bash (with partner-cli on PATH, the built bin) and must
// succeed; where the example shows `echo "exit $?"`, the exit code printed must be the one shown.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";

const DOC = new URL("../../docs/output.md", import.meta.url);

interface Example {
  command: string;
  /** The exit code shown after the command ("exit 5"), when the example prints it. */
  exit?: number;
}

function examples(): Example[] {
  const out: Example[] = [];
  const text = readFileSync(DOC, "utf8");
  for (const block of text.matchAll(/```console\n([\s\S]*?)```/g)) {
    const lines = block[1]!.split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.startsWith("$ ")) continue;
      let command = lines[i]!.slice(2);
      while (command.endsWith("\\")) command = `${command}\n${lines[++i]!}`;
      const shown = lines.slice(i + 1).find((l) => /^exit \d+$/.test(l) || l.startsWith("$ "));
      out.push({
        command,
        exit:
          command.includes('echo "exit $?"') && shown?.startsWith("exit ")
            ? Number(shown.slice(5))
            : undefined,
      });
    }
  }
  return out;
}

describe("docs/output.md examples", () => {
  const list = examples();

  it("has examples, all against the sandbox", () => {
    expect(list.length).toBeGreaterThan(10);
    for (const e of list) expect(e.command, e.command).toMatch(/partner-cli .*--sandbox/);
  });

  // One test per example, in the page's order (they share the config and the sandbox's data, as a
  // reader running them in turn would), each with the suite's own time bound.
  const dir = tempDir("pcli-docs-");
  const shim = join(dir, "partner-cli");
  writeFileSync(shim, `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(shim, 0o755);
  const env = {
    PATH: `${dir}:${process.env.PATH}`,
    PARTNER_CLI_CONFIG_DIR: join(dir, "config"),
    NO_COLOR: "1",
    PARTNER_API_KEY: "",
    PARTNER_BASE_URL: "",
    PARTNER_PROFILE: "",
  };
  it.each(list.map((e, i) => [i + 1, e.command.split("\n")[0]!, e] as const))(
    "example %i runs as written: %s",
    async (_n, _line, e) => {
      const r = await execa("bash", ["-o", "pipefail", "-c", e.command], { cwd: dir, env, reject: false });
      expect(r.exitCode, `${e.command}\n${r.stderr}`).toBe(0);
      if (e.exit !== undefined)
        expect(String(r.stdout).trimEnd().split("\n").at(-1), e.command).toBe(`exit ${e.exit}`);
    },
  );
});
