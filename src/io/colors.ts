// Minimal ANSI styling, applied only when the Io allows colors, and the one rule that decides
// whether it does (the conventions of NO_COLOR, FORCE_COLOR, CLICOLOR and CLICOLOR_FORCE).

const codes = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  dim: [2, 22],
  bold: [1, 22],
  cyan: [36, 39],
};
export type Style = keyof typeof codes;

export function style(io: { readonly color: boolean }, s: Style, text: string): string {
  if (!io.color) return text;
  const [open, close] = codes[s];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

export interface ColorFacts {
  env: NodeJS.ProcessEnv;
  /** --no-color was given. */
  noColorFlag: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /**
   * The terminal's own answer (tty.WriteStream#hasColors, which knows TERM=dumb and friends), when
   * stdout is a terminal stream that has one.
   */
  hasColors?: (() => boolean) | undefined;
}

/**
 * Whether to color, in this order:
 * 1. `--no-color`: never (the flag of this one run wins over the environment).
 * 2. `FORCE_COLOR` (any value but `0`/`false`, as Node reads it) or `CLICOLOR_FORCE` (set, not `0`):
 *    always, even when piped.
 * 3. `NO_COLOR` (set, not empty), `FORCE_COLOR=0|false` or `CLICOLOR=0`: never.
 * 4. Otherwise only when stdout and stderr are terminals and the terminal says it has colors.
 */
export function colorEnabled(f: ColorFacts): boolean {
  if (f.noColorFlag) return false;
  const force = f.env.FORCE_COLOR;
  const forceOff = force !== undefined && /^(0|false)$/i.test(force.trim());
  if (forceOff) return false;
  const cliForce = f.env.CLICOLOR_FORCE;
  if (force !== undefined || (cliForce !== undefined && cliForce !== "" && cliForce !== "0")) return true;
  if (f.env.NO_COLOR !== undefined && f.env.NO_COLOR !== "") return false;
  if (f.env.CLICOLOR === "0") return false;
  if (!f.stdoutIsTTY || !f.stderrIsTTY) return false;
  return f.hasColors ? f.hasColors() : true;
}
