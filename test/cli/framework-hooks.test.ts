// Issue 24, item 1: help through commander's own Help (configureHelp hooks), one declaration of each
// noun, no access to commander's private fields, no rewriting of a dependency's imports.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

const SRC = files(join(ROOT, "src")).map((f) => ({ f: f.slice(ROOT.length), text: readFileSync(f, "utf8") }));

describe("commander's own hooks, not copies of it", () => {
  test("no file in src/ reads or writes a commander private field (`_name`, `_aliases`, `_hidden`...)", () => {
    const COMMANDER_PRIVATE =
      /\._(aliases|hidden|name|args|description|helpConfiguration|lifeCycleHooks|optionValues|scriptPath|exitCallback|outputConfiguration)\b/;
    for (const { f, text } of SRC) expect(COMMANDER_PRIVATE.exec(text)?.[0], f).toBeUndefined();
  });

  test("no second help layout and no build-time help page", () => {
    const names = SRC.map((s) => s.f);
    expect(names).not.toContain(join("src", "cli", "help-layout.ts"));
    expect(names).not.toContain(join("src", "cli", "help-top.ts"));
    const help = SRC.find((s) => s.f === join("src", "cli", "help.ts"))!.text;
    expect(help).toContain("Help.prototype.formatHelp.call(");
    const bin = readFileSync(join(ROOT, "bin", "partner-cli.js"), "utf8");
    expect(bin).not.toMatch(/help-top|--help/);
    expect(bin).not.toContain("defineProperty");
  });

  test("the nouns are declared once: no list of names, aliases and descriptions beside the declarations", () => {
    const program = SRC.find((s) => s.f === join("src", "program.ts"))!.text;
    expect(program).not.toMatch(/LAZY_NOUNS|new Proxy|aliases: \[/);
  });

  test("the build rewrites no dependency's imports (no plugin resolving on behalf of a package)", () => {
    const build = readFileSync(join(ROOT, "scripts", "build.mjs"), "utf8");
    expect(build).not.toMatch(/node_modules\[\\\\\/\]commander/);
    expect(build).not.toContain("child_process$/");
  });
});
