// The baseline a trained model must beat: an interpolated bigram over vocabulary ids,
//   p(b | a) = λ·c(a, b)/c(a) + (1 − λ)·p_uni(b),   p_uni(b) = (c(b) + 1)/(N + V)  (add-one),
// with p_uni alone where c(a) = 0. Counts come from the train stream (N ids, V the vocabulary
// size; c(a) counts a as the first of a pair). The loss is the mean −ln p over the held-out
// stream's targets (every position after the first) that are not <unk>, id 0.
'use strict';

const LAMBDAS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95];

// → {targets, unigramLoss, losses: [{lambda, loss}], best: {lambda, loss}}.
function bigramBaseline(trainIds, evalIds, V) {
  const N = trainIds.length;
  const uni = new Float64Array(V);
  const first = new Float64Array(V);
  const pair = new Uint32Array(V * V);   // (V, V): row a, column b
  for (let t = 0; t < N; t++) uni[trainIds[t]]++;
  for (let t = 1; t < N; t++) {
    first[trainIds[t - 1]]++;
    pair[trainIds[t - 1] * V + trainIds[t]]++;
  }
  const pUni = (b) => (uni[b] + 1) / (N + V);

  let targets = 0;
  let unigramSum = 0;
  const sums = LAMBDAS.map(() => 0);
  for (let t = 1; t < evalIds.length; t++) {
    const a = evalIds[t - 1];
    const b = evalIds[t];
    if (b === 0) continue;
    targets++;
    const pu = pUni(b);
    unigramSum -= Math.log(pu);
    const pb = first[a] > 0 ? pair[a * V + b] / first[a] : 0;
    LAMBDAS.forEach((l, i) => {
      sums[i] -= Math.log(first[a] > 0 ? l * pb + (1 - l) * pu : pu);
    });
  }
  const losses = LAMBDAS.map((lambda, i) => ({ lambda, loss: sums[i] / targets }));
  // Lowest loss; on an exact tie the smaller λ (the list's order).
  const best = losses.reduce((m, x) => (x.loss < m.loss ? x : m));
  return { targets, unigramLoss: unigramSum / targets, losses, best };
}

module.exports = { bigramBaseline, LAMBDAS };
