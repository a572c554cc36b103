// A plain-text table for the benchmarks' output: right-aligned numbers, left-aligned where a
// column says so, and a blank line between groups of rows (rows with the same `group`).
'use strict';

function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.title.length, ...rows.map((r) => String(r[c.key] ?? '').length)));
  const line = (cells) => cells.map((v, i) => (columns[i].left ? String(v).padEnd(widths[i]) : String(v).padStart(widths[i]))).join('  ').trimEnd();
  const out = [line(columns.map((c) => c.title)), line(widths.map((w) => '-'.repeat(w)))];
  let lastGroup = null;
  for (const r of rows) {
    if (lastGroup !== null && r.group !== lastGroup) out.push('');
    lastGroup = r.group;
    out.push(line(columns.map((c) => r[c.key] ?? '')));
  }
  return out.join('\n');
}

module.exports = { table };
