// Numbers and names for people: counts in messages ("1 creator", "12,345 rows": thousands grouped
// as en-US writes them, without loading the locale data), money and ratios in tables, columns'
// titles in words. Machine formats (TSV, CSV, JSON) keep the API's values and names.

/** 12345 → "12,345" (a whole number; other numbers as String writes them). */
export const fmt = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** "1 creator", "2 creators", "1,000 batches" (`many` when the plural is not `one` + "s"). */
export const plural = (n: number, one: string, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;

/** Words written in capitals in a column's title. */
const CAPITALS: Record<string, string> = { id: "ID", url: "URL", gs1: "GS1", api: "API", est: "Est." };

/**
 * A column's title in words, for a terminal's table, from its API-style name: "codeLimit" → "Code
 * limit", "estimatedCommission" → "Estimated commission", "brand.id" → "Brand ID", "shareUrl" →
 * "Share URL". Machine formats keep the name itself.
 */
export function titleOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s._]+/)
    .filter(Boolean)
    .map((w) => CAPITALS[w.toLowerCase()] ?? w.toLowerCase());
  const [first = "", ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(" ");
}
