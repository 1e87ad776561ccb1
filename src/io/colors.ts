// Minimal ANSI styling, applied only when the Io allows colors.
import type { Io } from "./io.js";

const codes = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  dim: [2, 22],
  bold: [1, 22],
  cyan: [36, 39],
};
export type Style = keyof typeof codes;

export function style(io: Pick<Io, "color">, s: Style, text: string): string {
  if (!io.color) return text;
  const [open, close] = codes[s];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}
