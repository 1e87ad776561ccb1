// Commander's parse errors (unknown option or command, missing or invalid argument) in the words of
// every other error: "Error: <what>. Did you mean <flag>?" and one hint naming the command's help.
// Commander's own hooks only: outputError gets its text, preSubcommand says which command parsed.
import type { Command } from "commander";

/** The long flags `cmd` and its ancestors accept. */
function longFlags(cmd: Command): string[] {
  const out: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent)
    for (const o of c.options) if (o.long && !o.hidden) out.push(o.long);
  return out;
}

/**
 * A flag the typed one is the start of, or the start of (`--api-key` → `--api-key-stdin`), when
 * commander's edit-distance guess found none.
 */
function flagsLike(typed: string, cmd: Command): string[] {
  const flag = typed.split("=")[0]!;
  const found = longFlags(cmd).filter((f) => f !== flag && (f.startsWith(flag) || flag.startsWith(f)));
  return [...new Set(found)];
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** The lines for commander's error `text` met while parsing `cmd`. */
export function usageErrorText(text: string, cmd: Command): string {
  const [first = "", ...rest] = text.trim().split("\n");
  const guesses = rest.map((l) => /^\(Did you mean (.+)\?\)$/.exec(l.trim())?.[1]).filter(Boolean);
  let what = first.replace(/^error: /, "").replace(/\.$/, "");
  // Commander joins its sentence and the parser's ("... is invalid. expected true or false").
  what = what.replace(/\. ([a-z])/g, (_m, c: string) => `. ${c.toUpperCase()}`);
  const unknownFlag = /^unknown option '([^']+)'/.exec(what)?.[1];
  if (guesses.length === 0 && unknownFlag?.startsWith("--"))
    guesses.push(flagsLike(unknownFlag, cmd).join(" or "));
  const guess = guesses.find(Boolean);
  return `Error: ${what}.${guess ? ` Did you mean ${guess}?` : ""}\nRun "${commandPath(cmd)} --help" for usage.\n`;
}
