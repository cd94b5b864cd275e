import { stringify } from "csv-stringify/sync";

/*
 * The founders' files (export, let-in --launch-tool): rows as CSV or JSON, with the columns asked for and no other.
 */

const csvColumn = (column: string) => column.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
export const formats = ["csv", "json"] as const;

/** Rows as CSV or JSON, with these columns and no other, in this order. */
export function exportRows<Row extends object>(
  rows: readonly Row[],
  chosen: readonly (keyof Row & string)[],
  format: (typeof formats)[number],
  { escapeFormulas = true }: { escapeFormulas?: boolean } = {},
): string {
  if (format === "csv") {
    // Addresses come from visitors, and `=2*5@example.com` is a valid one: a
    // spreadsheet must see text, never a formula (csv-stringify's escape_formulas),
    // unless the file is for a mail tool, which must get each address as it is.
    // Excel reads a CSV file as the machine's legacy code page unless it starts
    // with UTF-8's byte-order mark; mailing tools and csv-parse (bom) skip it.
    return stringify(
      rows.map((row) => chosen.map((column) => [row[column] ?? null].flat().join(" ") || null)),
      { header: true, columns: chosen.map(csvColumn), escape_formulas: escapeFormulas, bom: true },
    );
  }
  return `${JSON.stringify(
    rows.map((row) => Object.fromEntries(chosen.map((column) => [column, row[column] ?? null]))),
    null,
    2,
  )}\n`;
}
