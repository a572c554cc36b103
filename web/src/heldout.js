// What the core measured of a shipped model of real text on its held-out excerpt, carried by the
// widget (scripts/web-parts.js, when the page is built): its heads' types ([layer][head]: mha heads
// --heldout) and its pruning curve ({steps, importance: [layer][head]}: models/NAME.prune.json, which
// mha prune --json wrote when the model was trained). null for any other model.
import heldoutHeads from 'heldout-heads:';
import pruningCurves from 'pruning-curves:';
import { MODEL_KINDS } from './attributes.js';

export function heldoutOf(model) {
  const kind = MODEL_KINDS[model];
  const id = kind && kind.shipped;
  return id && heldoutHeads[id] ? { types: heldoutHeads[id], curve: pruningCurves[id] || null } : null;
}
