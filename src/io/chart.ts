// Small terminal charts: horizontal bars for a few dozen values, a sparkline for more.

const SPARKS = "▁▂▃▄▅▆▇█";

export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  if (max === 0) return SPARKS[0]!.repeat(values.length);
  return values
    .map((v) => SPARKS[Math.min(SPARKS.length - 1, Math.round((v / max) * (SPARKS.length - 1)))])
    .join("");
}

/** One line per label: "label  ████████ value"; bars scaled to `width` columns. */
export function bars(rows: readonly { label: string; value: number }[], width = 40): string {
  const max = Math.max(0, ...rows.map((r) => r.value));
  const labelWidth = Math.max(0, ...rows.map((r) => r.label.length));
  return rows
    .map((r) => {
      const n = max === 0 ? 0 : Math.round((r.value / max) * width);
      const bar = n === 0 && r.value > 0 ? "▏" : "█".repeat(n);
      return `${r.label.padEnd(labelWidth)}  ${bar}${bar ? " " : ""}${r.value}`;
    })
    .join("\n");
}
