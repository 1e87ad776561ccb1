// What the Io does with stdout when --fields or --jq is given: complete JSON values (documents
// printed with outJson, lines of NDJSON written with out) go through a queue to the shaper
// (shape.ts, loaded on first use; jq is asynchronous to load).
import { UsageError } from "../errors.js";
import type { Shaper, ShapeValue } from "./shape.js";
import type { OutputFormat } from "./types.js";

export interface ShapingOptions {
  fields: string[][] | undefined;
  jq: string | undefined;
  /** The format the shaped output takes (json whenever jq runs or the output is JSON by nature). */
  format: () => OutputFormat;
  write(text: string): void;
  /** A notice on stderr (a --jq path that is not in the output). */
  note(line: string): void;
  /** The table's column names --fields accepts, and the JSON paths they stand for. */
  aliases(): Readonly<Record<string, string>>;
  stdoutIsTTY: boolean;
  width: number | undefined;
  wide: boolean;
  color: boolean;
}

export interface Shaping {
  /** Text written with out(): complete JSON values in it are shaped. */
  text(text: string): void;
  /** One whole JSON document (outJson, outJsonText); `text` is its bytes, when the command had them. */
  document(value: unknown, text?: string): void;
  /** A document given as text that may not be JSON (outJsonText). */
  documentText(text: string): void;
  finish(failed: boolean): Promise<void>;
}

export function createShaping(o: ShapingOptions): Shaping {
  let pendingText = "";
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  let shaper: Promise<Shaper> | undefined;
  const loadShaper = () =>
    (shaper ??= import("./shape.js").then((m) =>
      m.createShaper({ ...o, aliases: o.aliases(), format: o.jq !== undefined ? "json" : o.format() }),
    ));
  const enqueue = (v: ShapeValue) => {
    queue = queue.then(async () => {
      if (failure !== undefined) return;
      try {
        await (await loadShaper()).push(v);
      } catch (err) {
        failure = err;
      }
    });
  };
  /** Hands complete JSON texts written with out() to the shaper; `final` refuses what is left. */
  const drain = (final: boolean) => {
    const values = jsonValues(pendingText);
    if (values !== undefined) {
      for (const v of values) enqueue(v);
      pendingText = "";
      return;
    }
    if (!final) return;
    pendingText = "";
    failure ??= new UsageError(
      `${o.jq !== undefined ? "--jq" : "--fields"} works on JSON output, and this command printed something else.`,
      "Leave it out for this command, or see its --help for a JSON form.",
    );
  };
  return {
    text(text) {
      pendingText += text;
      if (text.endsWith("\n")) drain(false);
    },
    document(value, text) {
      drain(false);
      enqueue({ kind: "document", value, text });
    },
    documentText(text) {
      drain(false);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        pendingText += text;
        drain(true);
        return;
      }
      enqueue({ kind: "document", value, text });
    },
    async finish(failed) {
      if (failed) pendingText = "";
      else drain(true);
      await queue;
      if (shaper && failure === undefined) {
        try {
          await (await shaper).end();
        } catch (err) {
          failure = err;
        }
      }
      if (failure !== undefined && !failed) throw failure;
    },
  };
}

/**
 * The complete JSON values in text: one value, or several lines of one value each (NDJSON); [] for
 * blank text; undefined when the text is not (yet) JSON.
 */
function jsonValues(text: string): ShapeValue[] | undefined {
  if (text.trim() === "") return [];
  try {
    return [{ kind: "line", text, value: JSON.parse(text) }];
  } catch {
    // Several JSON lines (NDJSON) at once, or an incomplete value.
  }
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (lines.length < 2) return undefined;
  const values: ShapeValue[] = [];
  for (const line of lines) {
    try {
      values.push({ kind: "line", text: line, value: JSON.parse(line) });
    } catch {
      return undefined;
    }
  }
  return values;
}
