// The stages a result walks, as the core's stage table gave them (engine.js puts them on each
// result): the page holds no list of its own. Before the first result there is none to check against.
export const stageIdsOf = (result) => (result ? result.stages.map((s) => s.id) : null);

// The tensor whose shape the pipeline shows after a stage: the stage's first tensor in the table
// order (project -> q, attend -> raw_scores: the same (1, heads, T, T) as the weights).
export function shapeTensorOf(result, stageId) {
  // for…in, not Object.entries: the pipeline asks for every stage on every change
  for (const name in result.tensors) if (result.tensors[name].stage === stageId && !name.startsWith('layers.')) return name;
  return null;
}
