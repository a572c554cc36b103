// A recipe of the core's (catalog.recipes) as a Trainer takes it: its options of catalog.options.trainer
// that its task reads. The rest of a recipe (steps, lossFloor, causal, maxPositions, readouts) follows
// from them and is no option: a Trainer refuses a key it does not take (cpp/core/options.h).
export const trainerOptions = (catalog, recipe) => Object.fromEntries(catalog.options.trainer
  .filter((o) => !o.task || o.task === recipe.task)
  .map((o) => [o.key, recipe[o.key]]));
