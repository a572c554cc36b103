// The induction model trained with TensorFlow.js on tfjs-backend-wasm (one thread, loadTfjs()),
// with tfjs's own autodiff (optimizer.minimize) and tf.train.adam: the WebAssembly peer of
// npm run bench:train. The same model as cpp/core/model/forward.cpp's attn-only preset:
//   x = wte[ids] + wpe[:T]; per block x += attention(x) (fused qkv and c_proj, both with bias,
//   causal); logits = x · lm_headᵀ; loss = mean cross-entropy over the positions with a target.
// Weights come from a model file our trainer wrote (GPT-2 names, Conv1D matrices (in, out)).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { loadTfjs } = require('./tfjs.js');
const { ROOT } = require('./ours.js');

// tfjs-core's CommonJS build (what Node loads) registers no gradients: the union package
// @tensorflow/tfjs does that, from the ES modules of tfjs-core/dist/register_all_gradients.js. We
// bundle that one file with esbuild into build/bench/ and load it after tfjs-core; it fills the
// gradient registry that every copy of tfjs-core shares (a global), and uses the same engine.
function registerGradients(tf) {
  const out = path.join(ROOT, 'build', 'bench', `tfjs-gradients-${tf.version_core}.js`);
  if (!fs.existsSync(out)) {
    require('esbuild').buildSync({
      entryPoints: [require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js')],
      bundle: true, format: 'cjs', platform: 'node', outfile: out, logLevel: 'warning',
    });
  }
  require(out);
}

class TfjsTrainer {
  // tensors: {name: {shape, data: Float32Array}} of the attn-only model file; adam: {lr, beta1, beta2, eps}.
  constructor(tf, tensors, { heads, lr, beta1, beta2, eps }) {
    this.tf = tf;
    this.heads = heads;
    const variable = (name, transpose = false) => {
      const t = tensors[name];
      if (!t) throw new Error(`tfjs trainer: the model file has no '${name}'`);
      const value = tf.tensor(t.data, t.shape);
      const v = tf.variable(transpose ? tf.transpose(value) : value, true, name);
      if (transpose) value.dispose();
      return v;
    };
    this.wte = variable('wte.weight'); // (V, d)
    this.wpe = variable('wpe.weight'); // (P, d)
    [this.V, this.d] = this.wte.shape;
    this.blocks = [];
    for (let i = 0; `h.${i}.attn.c_attn.weight` in tensors; ++i) {
      const h = `h.${i}.attn.`;
      this.blocks.push({
        wqkv: variable(`${h}c_attn.weight`), // (d, 3d): x · W, the untransposed product XNNPACK runs
        bqkv: variable(`${h}c_attn.bias`),
        wo: variable(`${h}c_proj.weight`), // (d, d)
        bo: variable(`${h}c_proj.bias`),
      });
    }
    this.unembed = variable('lm_head.weight', true); // (d, V)
    this.variables = [this.wte, this.wpe, ...this.blocks.flatMap((b) => [b.wqkv, b.bqkv, b.wo, b.bo]), this.unembed];
    this.optimizer = tf.train.adam(lr, beta1, beta2, eps);
    this.masks = new Map(); // T -> (T, T): 0 on and below the diagonal, -1e9 above
  }

  mask(T) {
    let m = this.masks.get(T);
    if (!m) {
      const tf = this.tf;
      m = tf.tidy(() => tf.mul(tf.sub(tf.linalg.bandPart(tf.ones([T, T]), -1, 0), 1), 1e9));
      this.masks.set(T, m);
    }
    return m;
  }

  // The mean loss of the batch (ids, targets: Int32Array (B·T), target −1 = not counted), as a scalar tensor.
  lossOf(idsOneHot, targetsOneHot, counted, B, T) {
    const tf = this.tf;
    const { d, V, heads } = this;
    const D = d / heads;
    const N = B * T;
    const mask = this.mask(T);
    let x = tf.add(tf.matMul(idsOneHot, this.wte), tf.tile(tf.slice(this.wpe, [0, 0], [T, d]), [B, 1])); // (N, d)
    const split = (t) => tf.transpose(tf.reshape(t, [B, T, heads, D]), [0, 2, 1, 3]); // (B, heads, T, D)
    for (const b of this.blocks) {
      const [q, k, v] = tf.split(tf.add(tf.matMul(x, b.wqkv), b.bqkv), 3, 1).map(split); // (N, 3d) -> 3 × (B, heads, T, D)
      const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(D)), mask); // (B, heads, T, T)
      const headOut = tf.matMul(tf.softmax(scores), v); // (B, heads, T, D)
      const concat = tf.reshape(tf.transpose(headOut, [0, 2, 1, 3]), [N, d]);
      x = tf.add(x, tf.add(tf.matMul(concat, b.wo), b.bo));
    }
    const logits = tf.matMul(x, this.unembed); // (N, V)
    // −Σ log p[target] over the counted rows (a target of −1 one-hots to a row of zeros) / counted
    return tf.div(tf.neg(tf.sum(tf.mul(tf.logSoftmax(logits), targetsOneHot))), counted);
  }

  inputs(ids, targets) {
    const tf = this.tf;
    let counted = 0;
    for (const t of targets) counted += t >= 0;
    return {
      idsOneHot: tf.cast(tf.oneHot(tf.tensor1d(ids, 'int32'), this.V), 'float32'),
      targetsOneHot: tf.cast(tf.oneHot(tf.tensor1d(targets, 'int32'), this.V), 'float32'),
      counted,
    };
  }

  // The loss of a batch without training on it.
  loss(ids, targets, B, T) {
    const tf = this.tf;
    this.mask(T); // outside tidy, so it is kept
    return tf.tidy(() => {
      const { idsOneHot, targetsOneHot, counted } = this.inputs(ids, targets);
      return this.lossOf(idsOneHot, targetsOneHot, counted, B, T).dataSync()[0];
    });
  }

  // One Adam step on the batch; returns the loss before it (read back, as our trainer returns it).
  step(ids, targets, B, T) {
    const tf = this.tf;
    this.mask(T); // outside tidy, so it is kept
    return tf.tidy(() => {
      const { idsOneHot, targetsOneHot, counted } = this.inputs(ids, targets);
      const cost = this.optimizer.minimize(() => this.lossOf(idsOneHot, targetsOneHot, counted, B, T), true, this.variables);
      return cost.dataSync()[0];
    });
  }

  delete() {
    this.optimizer.dispose();
    for (const v of this.variables) v.dispose();
    for (const m of this.masks.values()) m.dispose();
  }
}

async function loadTfjsTrainer(tensors, options) {
  const tf = await loadTfjs();
  registerGradients(tf);
  return new TfjsTrainer(tf, tensors, options);
}

module.exports = { loadTfjsTrainer };
