// Counts in messages: "1 creator", "2 creators", "12,345 rows" (thousands grouped as en-US writes
// them, without loading the locale data).

/** 12345 → "12,345" (a whole number; other numbers as String writes them). */
export const fmt = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** "1 creator", "2 creators", "1,000 batches" (`many` when the plural is not `one` + "s"). */
export const plural = (n: number, one: string, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;
