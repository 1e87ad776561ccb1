// The one boolean grammar for what a person types (flag values such as --active): true/yes/1 or
// false/no/0, any case, surrounding spaces ignored.

/** true or false, or undefined when `text` is neither. */
export function parseBoolean(text: string): boolean | undefined {
  const v = text.trim().toLowerCase();
  if (v === "true" || v === "yes" || v === "1") return true;
  if (v === "false" || v === "no" || v === "0") return false;
  return undefined;
}
