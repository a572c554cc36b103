// How a recorded history (scripts/history.js) keeps a model of real text's attention maps, and how the
// training panel reads them back. A poem's maps are 4 heads of 64 × 64 at 21 snapshots: a causal map's
// upper triangle is 0 by construction, and the panel colours a weight to 1/100, so each head keeps its
// lower triangle row by row (row i: keys 0 … i) as whole hundredths. The induction history keeps its
// full maps at 3 places (its phase change is read in them) and has no `packing`.
export const PACKING = { triangle: 'lower', scale: 100 };

// weights: one layer's maps, heads × T × T, row-major (the trace's `layers.L.weights`).
export function packMaps(weights, T) {
  const heads = weights.length / (T * T);
  const out = [];
  for (let hd = 0; hd < heads; hd++)
    for (let i = 0; i < T; i++)
      for (let j = 0; j <= i; j++) out.push(Math.round(weights[hd * T * T + i * T + j] * PACKING.scale));
  return out;
}

// The inverse, to a Float32Array of heads × T × T; a file packed otherwise is refused, not misdrawn.
export function unpackMaps(packed, T, packing) {
  if (!packing) return Float32Array.from(packed);
  if (packing.triangle !== PACKING.triangle || !(packing.scale > 0)) throw new Error(`a history's maps packed as ${JSON.stringify(packing)}: this page reads ${JSON.stringify(PACKING)}`);
  const perHead = (T * (T + 1)) / 2;
  if (packed.length % perHead !== 0) throw new Error(`a history's map has ${packed.length} numbers, not a multiple of ${perHead} (T ${T})`);
  const heads = packed.length / perHead;
  const out = new Float32Array(heads * T * T);
  let k = 0;
  for (let hd = 0; hd < heads; hd++)
    for (let i = 0; i < T; i++)
      for (let j = 0; j <= i; j++) out[hd * T * T + i * T + j] = packed[k++] / packing.scale;
  return out;
}
