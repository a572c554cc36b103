// A head of the core's analysis JSON (label, strongest, offset, measure: head_metrics.cpp
// analysis_to_json) as the page names it: its label, the type it is nearest (a mixed head's), the
// measure that rests on and its chance, and a positional head's offset. The heads table, the training
// panel and its events read it, and scripts/web-parts.js records held-out heads with it (no DOM here).
export const headType = ({ label, strongest, measure, offset }) => ({
  type: label, strongest: strongest || null, value: measure ? measure.value : null, chance: measure ? measure.chance : null,
  offset: measure && measure.type === 'positional' ? offset : null,
});
