// The layout of every `--help` page, without commander: a page is data (usage, description, sections
// of terms and descriptions, notes, examples) and renderHelp() lays it out for a width. help.ts reads
// the page of a command from the tree (helpPage) and renders it with this; bin/partner-cli.js answers
// the top-level `--help` with the same function over the page the build read from the built program
// (help-top.ts, scripts/build.mjs), so both print the same bytes. Nothing here imports commander.
// The item wrapping (boxWrap, the colour-blind width) follows commander 14's Help, which this replaces.

/** The width help wraps at: COLUMNS when set, else the terminal's width, else (piped) 80. */
export function helpWidth(env: NodeJS.ProcessEnv, stdout: object): number {
  const fromEnv = Number.parseInt(env.COLUMNS ?? "", 10);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  const out = stdout as { isTTY?: boolean; columns?: number };
  const columns = out.isTTY ? out.columns : undefined;
  return columns && columns > 0 ? columns : 80;
}

/** One term (an option, a command, an argument) and its description. */
export interface HelpItem {
  term: string;
  description: string;
}

export interface HelpSection {
  /** "Options:", "Commands:", ... */
  heading: string;
  items: HelpItem[];
}

/** Everything one help page shows, none of it depending on the width. */
export interface HelpPage {
  /** The first line, "Usage: partner-cli [options] [command]". */
  usage: string;
  description: string;
  /** In order; a section without items is not shown. */
  sections: HelpSection[];
  /** Flags inherited from the ancestors (leaves only). */
  inherited: HelpItem[];
  /** The widest term: the term column's width where the page is wide enough. */
  termWidth: number;
  /** Below this many columns a description is not wrapped (commander's minWidthToWrap). */
  minWidthToWrap: number;
  notes: string;
  examples: string[];
  /** The last paragraph (the top-level page's pointer to `help <command>`). */
  footer: string;
}

/** Text without its colour codes (SGR), as commander's stripColor. */
export function stripColor(text: string): string {
  return text.replace(/\x1b\[\d*(;\d*)*m/g, "");
}

/** Columns a help text takes (colour codes take none). */
export function displayWidth(text: string): number {
  return stripColor(text).length;
}

/** Wraps at whitespace to `width`, keeping line breaks; not below `minWidthToWrap` (commander's boxWrap). */
export function boxWrap(text: string, width: number, minWidthToWrap: number): string {
  if (width < minWidthToWrap) return text;
  const wrapped: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      wrapped.push("");
      continue;
    }
    let sum = [chunks.shift()!];
    let sumWidth = displayWidth(sum[0]!);
    for (const chunk of chunks) {
      const w = displayWidth(chunk);
      if (sumWidth + w <= width) {
        sum.push(chunk);
        sumWidth += w;
        continue;
      }
      wrapped.push(sum.join(""));
      const next = chunk.trimStart();
      sum = [next];
      sumWidth = displayWidth(next);
    }
    wrapped.push(sum.join(""));
  }
  return wrapped.join("\n");
}

/** The width of the term column: the widest term, but never more than 40% of the width. */
export function termColumn(widest: number, width: number): number {
  return Math.min(widest, Math.max(16, Math.floor(width * 0.4)));
}

/** A term and its description; a term wider than the column puts the description on the next line. */
export function formatItem(
  term: string,
  termWidth: number,
  description: string,
  width: number,
  minWidthToWrap: number,
): string {
  const indent = 2 + termWidth + 2;
  const descWidth = Math.max(20, width - indent);
  const desc = description ? boxWrap(description, descWidth, minWidthToWrap).split("\n") : [];
  const pad = " ".repeat(indent);
  if (displayWidth(term) > termWidth) {
    return [`  ${term}`, ...desc.map((l) => pad + l)].join("\n");
  }
  if (!desc.length) return `  ${term}`;
  const head = `  ${term.padEnd(termWidth + term.length - displayWidth(term))}  ${desc[0]}`;
  return [head, ...desc.slice(1).map((l) => pad + l)].join("\n");
}

/** Splits a shell command line at the spaces that separate words (quoted spaces kept). */
export function shellWords(line: string): string[] {
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

/** The part commander's Help.formatHelp used to make: usage, description and the sections. */
function body(page: HelpPage, width: number, termWidth: number): string {
  const item = (i: HelpItem) => formatItem(i.term, termWidth, i.description, width, page.minWidthToWrap);
  const out = [page.usage, ""];
  if (page.description.length > 0) out.push(boxWrap(page.description, width, page.minWidthToWrap), "");
  for (const s of page.sections) if (s.items.length) out.push(s.heading, ...s.items.map(item), "");
  return out.join("\n");
}

/** A help page laid out for `width` columns: every line fits where it can. */
export function renderHelp(page: HelpPage, width: number): string {
  const termWidth = termColumn(page.termWidth, width);
  const out: string[] = [body(page, width, termWidth).trimEnd(), ""];
  if (page.inherited.length) {
    out.push("Inherited flags:");
    for (const i of page.inherited)
      out.push(formatItem(i.term, termWidth, i.description, width, page.minWidthToWrap));
    out.push("");
  }
  if (page.notes) out.push(wrapText(page.notes.replace(/([^\n])\n(?=[^\n\s-])/g, "$1 "), width), "");
  if (page.examples.length)
    out.push("Examples:", ...page.examples.flatMap((e) => exampleLines(e, width)), "");
  if (page.footer) out.push(wrapText(page.footer, width), "");
  // Whatever is still wider than the width (a long usage line) is wrapped last.
  return `${wrapText(out.join("\n"), width).trimEnd()}\n`;
}
