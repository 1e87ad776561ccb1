// `--help` like gh's: every line fits the terminal (COLUMNS honoured, 80 when piped), long terms put
// their description on the next line, every leaf lists the flags it inherits, notes and examples
// are part of the help text (wrapped; a long example continues with " \\" so it still runs as
// written). program.ts applies it to the whole tree with configureHelp(): commander's own Help lays
// out each page (Help.formatHelp), through its documented hooks padWidth and formatItem; formatHelp
// appends the inherited flags, notes, examples and the top-level footer after commander's text.
import { type Command, Help, type Option } from "commander";

/** The width help wraps at: COLUMNS when set, else the terminal's width, else (piped) 80. */
export function helpWidth(env: NodeJS.ProcessEnv, stdout: object): number {
  const fromEnv = Number.parseInt(env.COLUMNS ?? "", 10);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  const out = stdout as { isTTY?: boolean; columns?: number };
  const columns = out.isTTY ? out.columns : undefined;
  return columns && columns > 0 ? columns : 80;
}

// Keyed by the command object, whichever typing of commander the caller holds (the declarations
// use @commander-js/extra-typings, the tree's readers commander's own).
const notesMap = new WeakMap<object, string>();
const examplesMap = new WeakMap<object, string[]>();

/** Paragraphs shown after a command's options (help and generated docs). Lines join when wrapped. */
export function notes<C extends object>(cmd: C, text: string): C {
  notesMap.set(cmd, text.trim());
  return cmd;
}

export function notesOf(cmd: object): string {
  return notesMap.get(cmd) ?? "";
}

/** Example command lines shown in --help, the docs and the man pages. */
export function setExamples<C extends object>(cmd: C, lines: string[]): C {
  examplesMap.set(cmd, lines);
  return cmd;
}

export function examplesOf(cmd: object): string[] {
  return examplesMap.get(cmd) ?? [];
}

/** The flags a leaf accepts from its ancestors (the program's global options), --help last. */
function inheritedOptions(cmd: Command): Option[] {
  const out: Option[] = [];
  for (let c = cmd.parent; c; c = c.parent) {
    out.push(...c.options.filter((o) => !o.hidden && o.long !== "--version" && o.long !== "--help"));
  }
  return out;
}

/** Splits a shell command line at the spaces that separate words (quoted spaces kept). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === " ") {
      if (word) words.push(word);
      word = "";
      continue;
    }
    word += ch;
  }
  if (word) words.push(word);
  return words;
}

/**
 * One example as lines of at most `width` columns where it can: "  $ " then the command, continued
 * with " \" and an indent of 6 (a shell runs the continued lines as the one command).
 */
export function exampleLines(example: string, width: number): string[] {
  const first = `  $ ${example}`;
  if (first.length <= width) return [first];
  // A flag stays with its value (`--offer 0012345000011`), so a continued line starts with a flag.
  const units: string[] = [];
  for (const w of shellWords(example)) {
    const last = units[units.length - 1];
    const joins =
      (last?.startsWith("-") && !last.includes(" ") && !w.startsWith("-")) ||
      /^[0-9]?[<>|]+$/.test(last ?? "-");
    if (last !== undefined && joins) units[units.length - 1] = `${last} ${w}`;
    else units.push(w);
  }
  // A flag and value too long for a continued line go on two.
  const fitted = units.flatMap((u) =>
    u.length + 8 > width && u.startsWith("-") && u.includes(" ")
      ? [u.slice(0, u.indexOf(" ")), u.slice(u.indexOf(" ") + 1)]
      : [u],
  );
  const lines: string[] = [];
  let line = `  $ ${fitted.shift() ?? ""}`;
  for (const u of fitted) {
    if (`${line} ${u} \\`.length <= width) line += ` ${u}`;
    else {
      lines.push(`${line} \\`);
      line = `      ${u}`;
    }
  }
  lines.push(line);
  return lines;
}

/** Wraps text to `width`, keeping each line's indent for its continuation lines. */
export function wrapText(text: string, width: number): string {
  return text
    .split("\n")
    .flatMap((raw) => {
      if (raw.length <= width) return [raw];
      const indent = /^\s*/.exec(raw)![0];
      const out: string[] = [];
      let line = indent;
      const room = Math.max(1, width - indent.length);
      // A word longer than the room left after the indent is cut (a path in a narrow terminal).
      const words = raw
        .trim()
        .split(/\s+/)
        .flatMap((w) => w.match(new RegExp(`.{1,${room}}`, "g")) ?? [w]);
      for (const word of words) {
        if (line.trim() && `${line} ${word}`.length > width) {
          out.push(line);
          line = `${indent}${word}`;
        } else line = line.trim() ? `${line} ${word}` : `${indent}${word}`;
      }
      out.push(line);
      return out;
    })
    .join("\n");
}

function isLeaf(cmd: Command): boolean {
  return cmd.commands.length === 0 && cmd.parent !== null;
}

/** The width of the term column: the widest term (inherited flags too), never over 40% of the width. */
function padWidth(cmd: Command, helper: Help): number {
  const natural = Math.max(
    Help.prototype.padWidth.call(helper, cmd, helper),
    ...inheritedOptions(cmd).map((o) => helper.displayWidth(helper.optionTerm(o))),
  );
  return Math.min(natural, Math.max(16, Math.floor((helper.helpWidth ?? 80) * 0.4)));
}

/** A term and its description; a term wider than the column puts the description on the next line. */
function formatItem(term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const indent = 2 + termWidth + 2;
  const desc = description ? helper.boxWrap(description, Math.max(20, width - indent)).split("\n") : [];
  const pad = " ".repeat(indent);
  if (helper.displayWidth(term) > termWidth) return [`  ${term}`, ...desc.map((l) => pad + l)].join("\n");
  if (!desc.length) return `  ${term}`;
  const head = `  ${term.padEnd(termWidth + term.length - helper.displayWidth(term))}  ${desc[0]}`;
  return [head, ...desc.slice(1).map((l) => pad + l)].join("\n");
}

const LEARN_MORE =
  'Learn more: "partner-cli help <command> [<verb>]" for a command; "partner-cli help <topic>" for environment, exit-codes, formats or sandbox.';

/** commander's page, then the inherited flags, the notes, the examples and (top level) the footer. */
function formatHelp(cmd: Command, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const out: string[] = [Help.prototype.formatHelp.call(helper, cmd, helper).trimEnd(), ""];
  const inherited = isLeaf(cmd) ? inheritedOptions(cmd) : [];
  if (inherited.length) {
    const termWidth = helper.padWidth(cmd, helper);
    out.push("Inherited flags:");
    for (const o of inherited)
      out.push(helper.formatItem(helper.optionTerm(o), termWidth, helper.optionDescription(o), helper));
    out.push("");
  }
  const text = notesOf(cmd);
  if (text) out.push(wrapText(text.replace(/([^\n])\n(?=[^\n\s-])/g, "$1 "), width), "");
  const ex = examplesOf(cmd);
  if (ex.length) out.push("Examples:", ...ex.flatMap((e) => exampleLines(e, width)), "");
  if (cmd.parent === null) out.push(wrapText(LEARN_MORE, width), "");
  // Whatever commander left wider than the width (a long usage line) is wrapped last.
  return `${wrapText(out.join("\n"), width).trimEnd()}\n`;
}

/** Applies this help to `program` and every command declared on it afterwards. */
export function configureHelp(program: Command, width: number): void {
  program.configureHelp({ helpWidth: width, padWidth, formatItem, formatHelp });
}
