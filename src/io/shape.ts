// --fields and --jq: what a command prints as JSON, picked and queried before it reaches stdout.
// Loaded by io.ts only when one of them is given; jq (jq 1.8 compiled to WebAssembly, the jq-wasm
// package) only when --jq is.
//
// --fields a,b.c picks keys (dot for nested keys; through arrays, element by element). With JSON
// output the picked keys keep their nesting; otherwise a list becomes a table (terminal) or TSV
// (piped) whose columns are the fields, and one object becomes "field value" lines.
// --jq EXPR runs jq's language on the (picked) JSON, like `jq -r`: strings print raw, everything
// else as JSON (pretty on a terminal, one line each when piped).
import type { Cell } from "../csv/write.js";
import { UsageError } from "../errors.js";
import { cellText, renderTable, tsvCell } from "./render.js";
import type { OutputFormat } from "./types.js";
import { isRecord } from "../spec/records.js";

/** A complete JSON value a command printed: with outJson (a document) or as text with out(). */
export interface ShapeValue {
  /** document: one whole output (outJson, outJsonText); line: one value of a stream written with out(). */
  kind: "document" | "line";
  value: unknown;
  /** The JSON text as the command wrote it, when it wrote text: jq reads it unchanged (numbers keep their digits). */
  text?: string | undefined;
}

export interface Shaper {
  push(v: ShapeValue): Promise<void>;
  end(): Promise<void>;
}

export interface ShaperOptions {
  fields?: string[][] | undefined;
  /** Column names of the command's table that --fields accepts: name → JSON path ("codeLimit" → "codes.limit"). */
  aliases?: Readonly<Record<string, string>> | undefined;
  /** A notice on stderr. */
  note?: ((line: string) => void) | undefined;
  jq?: string | undefined;
  /** The output's format (json whenever jq runs, or for a command whose output is JSON by nature). */
  format: OutputFormat;
  write(text: string): void;
  stdoutIsTTY: boolean;
  /** Terminal columns for a table (undefined: no limit). */
  width?: number | undefined;
  wide?: boolean | undefined;
  color: boolean;
}

interface FieldNode {
  /** The whole value at this key was asked for. */
  leaf: boolean;
  /** The field as given (for messages), when leaf. */
  name: string;
  children: Map<string, FieldNode>;
}

function fieldTree(fields: string[][]): Map<string, FieldNode> {
  const root = new Map<string, FieldNode>();
  for (const path of fields) {
    let level = root;
    path.forEach((key, i) => {
      let node = level.get(key);
      if (!node) {
        node = { leaf: false, name: path.slice(0, i + 1).join("."), children: new Map() };
        level.set(key, node);
      }
      if (i === path.length - 1) node.leaf = true;
      level = node.children;
    });
  }
  return root;
}

function leafNames(node: FieldNode, out: Set<string>): void {
  if (node.leaf) out.add(node.name);
  for (const c of node.children.values()) leafNames(c, out);
}

/** Picks the fields out of a value; arrays are picked element by element. `found` collects the fields met. */
function project(v: unknown, tree: Map<string, FieldNode>, found: Set<string>): unknown {
  if (Array.isArray(v)) return v.map((x) => project(x, tree, found));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [key, node] of tree) {
    if (!Object.hasOwn(v, key)) continue;
    const x = v[key];
    if (node.leaf || x === null) {
      // The whole value; a null parent means its nested fields are known, and empty.
      out[key] = x;
      leafNames(node, found);
    } else if (typeof x === "object") {
      out[key] = project(x, node.children, found);
    }
  }
  return out;
}

/** The value at a path; through arrays, element by element. */
function valueAt(v: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return v;
  if (Array.isArray(v)) return v.map((x) => valueAt(x, path));
  if (!isRecord(v)) return undefined;
  return valueAt(v[path[0]!], path.slice(1));
}

/** Whether the value holds any object to pick from (an empty list does not). */
function hasObjects(v: unknown): boolean {
  return Array.isArray(v) ? v.some(hasObjects) : isRecord(v);
}

function firstObject(v: unknown): Record<string, unknown> | undefined {
  if (isRecord(v)) return v;
  if (Array.isArray(v)) for (const x of v) if (isRecord(x)) return x;
  return undefined;
}

interface JqRunner {
  run(inputText: string): string;
}

/** Loads jq (about 80 ms the first time) and wraps it: output like `jq -r`, errors as usage errors. */
async function loadJqRunner(expr: string, pretty: boolean): Promise<JqRunner> {
  const { loadJq } = await import("jq-wasm");
  const jq = await loadJq();
  const flags = pretty ? ["-r"] : ["-r", "-c"];
  return {
    run(inputText) {
      const r = jq.raw(inputText, expr, flags);
      if (r.exitCode !== 0) throw jqError(r.stderr || `jq exited with status ${r.exitCode}`);
      return r.stdout;
    },
  };
}

function jqError(stderr: string): UsageError {
  return new UsageError(
    stderr.trim().replace(/\/dev\/stdin/g, "<stdin>"),
    "--jq runs on the JSON this command prints (run it with --json to see it); see https://jqlang.org/manual/.",
  );
}

/**
 * Checks that an expression compiles, without running it on anything: it is wrapped as the body of
 * a function that is never called. Only when that fails is the expression itself compiled, for
 * jq's own message and positions.
 */
export async function checkJq(expr: string): Promise<void> {
  const { loadJq } = await import("jq-wasm");
  const jq = await loadJq();
  const wrapped = jq.raw(null, `def __partner_cli_check:\n(${expr}\n);\nempty`, ["-n"]);
  if (wrapped.exitCode === 0) return;
  const plain = jq.raw(null, expr, ["-n"]);
  if (plain.exitCode === 3 || /compile error/.test(plain.stderr)) throw jqError(plain.stderr);
}

export function createShaper(o: ShaperOptions): Shaper {
  let jq: Promise<JqRunner> | undefined;
  // The fields are resolved on the first value: a table's column name stands for its JSON path
  // when the output has no key of that name.
  let fields: { tree: Map<string, FieldNode>; columns: FieldColumn[]; text: FieldText } | undefined;
  const pick = (v: ShapeValue): unknown => {
    if (!o.fields) return v.value;
    if (!fields) {
      const columns = o.fields.map((f) => withAlias(f, o.aliases ?? {}, firstObject(v.value)));
      fields = { tree: fieldTree(columns.map((c) => c.path)), columns, text: new FieldText(o, columns) };
    }
    return pickFields(v, fields.tree, fields.columns, o.aliases ?? {});
  };
  let noted = false;

  return {
    async push(v) {
      const picked = pick(v);
      if (o.jq !== undefined) {
        jq ??= loadJqRunner(o.jq, o.stdoutIsTTY);
        // Text as printed goes to jq unchanged (numbers keep their digits); picked values re-encoded.
        const input = fields ? JSON.stringify(picked) : (v.text ?? JSON.stringify(v.value));
        const out = (await jq).run(input);
        if (!noted && o.note) {
          noted = true;
          const missing = missingJqPath(o.jq, picked, o.aliases ?? {});
          if (missing) o.note(missing);
        }
        if (out !== "") o.write(out.endsWith("\n") ? out : `${out}\n`);
        return;
      }
      if (o.format === "json") {
        o.write(`${JSON.stringify(picked, null, o.stdoutIsTTY && v.kind === "document" ? 2 : undefined)}\n`);
        return;
      }
      if (o.format === "ndjson") {
        const items = Array.isArray(picked) ? picked : [picked];
        o.write(items.map((x) => `${JSON.stringify(x)}\n`).join(""));
        return;
      }
      await fields!.text.render(v, picked);
    },
    async end() {},
  };
}

interface FieldColumn {
  name: string;
  path: string[];
}

/** A field as typed; a table's column name (an alias) picks the JSON path it shows. */
function withAlias(
  path: string[],
  aliases: Readonly<Record<string, string>>,
  sample: Record<string, unknown> | undefined,
): FieldColumn {
  const name = path.join(".");
  const target = aliases[name];
  if (target === undefined || (sample && Object.hasOwn(sample, path[0]!))) return { name, path };
  return { name, path: target.split(".") };
}

/** Picks --fields out of a value; a document must hold every field asked for. */
function pickFields(
  v: ShapeValue,
  tree: Map<string, FieldNode>,
  columns: readonly FieldColumn[],
  aliases: Readonly<Record<string, string>>,
): unknown {
  if (!hasObjects(v.value)) {
    if (Array.isArray(v.value) && v.value.length === 0) return v.value;
    throw new UsageError(
      `--fields picks keys of JSON objects, and this command printed ${describe(v.value)}.`,
      "Leave out --fields, or use --jq.",
    );
  }
  const found = new Set<string>();
  const picked = project(v.value, tree, found);
  // A line of a stream (NDJSON) may lack an optional key that other lines have: no check there.
  if (v.kind === "document") {
    const unknown = columns.filter((c) => !found.has(c.path.join("."))).map((c) => c.name);
    if (unknown.length) throw unknownFields(v.value, unknown, aliases);
  }
  return picked;
}

function unknownFields(
  value: unknown,
  unknown: readonly string[],
  aliases: Readonly<Record<string, string>>,
): UsageError {
  const paths = leafPaths(firstObject(value) ?? {});
  const hints = unknown.flatMap((u) => {
    const like = likePath(u, paths);
    return like ? [`"${u}" may be ${like}`] : [];
  });
  return new UsageError(
    `--fields: no field ${unknown.map((u) => `"${u}"`).join(", ")} in this output${hints.length ? ` (${hints.join("; ")})` : ""}.`,
    `${fieldsLine(paths, aliases)} (--json shows the values).`,
  );
}

/** "Its fields are: a, b.c, ...; the table's names codeLimit (codes.limit), ..." */
function fieldsLine(paths: readonly string[], aliases: Readonly<Record<string, string>>): string {
  const named = Object.entries(aliases).map(([k, v]) => `${k} (${v})`);
  return `Its fields are: ${paths.join(", ")}${named.length ? `; and the table's names: ${named.join(", ")}` : ""}`;
}

/** The dotted paths of an object's values, nested objects entered ("brand.id"), lists not. */
function leafPaths(o: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    isRecord(v) && Object.keys(v).length > 0 ? leafPaths(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

/** The path a flattened name means ("brandId" → "brand.id"), compared without dots or case. */
function likePath(name: string, paths: readonly string[]): string | undefined {
  const flat = (s: string) => s.replace(/\./g, "").toLowerCase();
  return paths.find((p) => p.includes(".") && flat(p) === flat(name));
}

const SIMPLE_PATH = /^\s*(\.\[\]\s*\|?\s*)?((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*$/;

/**
 * jq prints null for a key that is not there: for a plain path (`.brandId`, `.[].brandId`, `.[] |
 * .a.b`) that the output does not have, the notice that says so and what it may have meant.
 */
function missingJqPath(
  expr: string,
  value: unknown,
  aliases: Readonly<Record<string, string>>,
): string | undefined {
  const m = SIMPLE_PATH.exec(expr);
  if (!m) return undefined;
  const keys = m[2]!.slice(1).split(".");
  let at: unknown = m[1] ? firstObject(value) : value;
  for (const key of keys) {
    if (!isRecord(at)) return undefined; // null parents and the like: jq's null is the truth
    if (!Object.hasOwn(at, key)) {
      const paths = leafPaths(firstObject(value) ?? {});
      const name = keys.join(".");
      const like = aliases[name] ?? likePath(name, paths);
      return `Note: --jq: this output has no "${name}" (jq prints null for a missing key)${like ? `; did you mean ${m[1] ? ".[]" : ""}.${like}?` : "."} ${fieldsLine(paths, aliases)}.`;
    }
    at = at[key];
  }
  return undefined;
}

/** The picked fields as text: a table, TSV or CSV of a list (or of a stream's lines), or "field value" lines. */
class FieldText {
  private streamHeader = false;
  private readonly names: string[];
  constructor(
    private readonly o: ShaperOptions,
    private readonly cols: readonly FieldColumn[],
  ) {
    this.names = cols.map((c) => c.name);
  }

  private cells(r: unknown): unknown[] {
    return this.cols.map((c) => valueAt(r, c.path));
  }

  private tsvRow(r: unknown, forTable: boolean): string {
    return this.cells(r)
      .map((x) => tsvCell(cellText(x, forTable)))
      .join("\t");
  }

  async render(v: ShapeValue, picked: unknown): Promise<void> {
    const o = this.o;
    if (o.format === "csv") return this.csv(v, picked);
    if (Array.isArray(picked)) {
      if (o.format === "table") {
        const table = this.cols.map((c) => ({ header: c.name, value: (r: unknown) => valueAt(r, c.path) }));
        o.write(renderTable(picked, table, { width: o.width, wide: o.wide, color: o.color }));
      } else {
        o.write(`${[this.names.join("\t"), ...picked.map((r) => this.tsvRow(r, false))].join("\n")}\n`);
      }
      return;
    }
    if (v.kind === "line") {
      // One line of a stream: a row, under one header.
      if (!this.streamHeader) o.write(`${this.names.join("\t")}\n`);
      this.streamHeader = true;
      o.write(`${this.tsvRow(picked, o.stdoutIsTTY)}\n`);
      return;
    }
    // One object: "field value" lines.
    const width = Math.max(...this.names.map((n) => n.length));
    const line = (c: FieldColumn) =>
      o.format === "table"
        ? `${c.name.padEnd(width)}  ${cellText(valueAt(picked, c.path), true)}`
        : `${c.name}\t${tsvCell(cellText(valueAt(picked, c.path), false))}`;
    o.write(`${this.cols.map(line).join("\n")}\n`);
  }

  private async csv(v: ShapeValue, picked: unknown): Promise<void> {
    const { formatCsv } = await import("../csv/write.js");
    const rows = Array.isArray(picked) ? picked.map((r) => this.cells(r)) : [this.cells(picked)];
    const header = v.kind === "line" && this.streamHeader ? undefined : this.names;
    this.streamHeader = true;
    this.o.write(formatCsv(rows as Cell[][], header));
  }
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "a list of values that are not objects";
  if (v === null) return "null";
  return `a ${typeof v}`;
}
