// The columns of a tabular output (exports and reports) and what each holds, which decides its cell
// type in a workbook. Shared by table-file.ts (the CSV/xlsx choice) and xlsx.ts (the workbook writer).

/**
 * What a column holds, which decides its cell type in a workbook (CSV writes every kind as text):
 * text (identifiers, names; leading zeros kept), timestamp (ISO 8601 UTC → a date cell), count
 * (integer), money (decimal dollars), number (rates and other decimals), boolean.
 */
export type ColumnKind = "text" | "timestamp" | "count" | "money" | "number" | "boolean";

export interface Column {
  readonly name: string;
  readonly kind: ColumnKind;
  /** Width in characters in a workbook; a default by kind otherwise. */
  readonly width?: number;
}

/** Shorthand: columns from [name, kind] pairs. */
export function columns(spec: readonly (readonly [string, ColumnKind, number?])[]): Column[] {
  return spec.map(([name, kind, width]) => (width === undefined ? { name, kind } : { name, kind, width }));
}
