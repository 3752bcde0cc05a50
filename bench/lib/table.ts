/** Plain-text tables for benchmark output: left-aligned first column, right-aligned figures. */

export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** A figure with a sensible number of digits for its size. */
export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return '-';
  if (Math.abs(value) >= 1000) return Math.round(value).toString();
  return value.toFixed(digits);
}
