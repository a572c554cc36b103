// A stage's tensors as CSV (long format) or safetensors (with what made them in its metadata).
import { download } from './files.js';
import { provenance } from './provenance.js';
import { tensorsSafetensors } from './safetensors.mjs';

// ---- the tensors of a stage: {name: {shape, data}} plus the tokens ----

function csvField(s) {
  const v = String(s);
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

// Long format, one value per line: tensor,batch,head,row,col,token,value. Rank-3 tensors
// (1, T, width) leave head empty; the token is the one of the row.
function tensorsCsv(tensors, tokens) {
  const lines = ['tensor,batch,head,row,col,token,value'];
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    if (shape.length === 1) {
      for (let t = 0; t < shape[0]; t++) lines.push([name, '', '', t, '', csvField(tokens[t]), data[t]].join(','));
      continue;
    }
    const rank4 = shape.length === 4;
    const [B, H, T, C] = rank4 ? shape : [shape[0], 1, shape[1], shape[2]];
    let i = 0;
    for (let b = 0; b < B; b++)
      for (let hd = 0; hd < H; hd++)
        for (let t = 0; t < T; t++) {
          const tok = csvField(tokens[t]);
          for (let c = 0; c < C; c++, i++) lines.push(`${name},${b},${rank4 ? hd : ''},${t},${c},${tok},${Number.isFinite(data[i]) ? data[i] : data[i] > 0 ? 'inf' : data[i] < 0 ? '-inf' : 'nan'}`);
        }
  }
  return `${lines.join('\n')}\n`;
}

// The tensors a stage produced (tokenize: the token ids).
function stageTensors(result, stage) {
  if (stage === 'tokenize') return { ids: { shape: [result.ids.length], data: result.ids, dtype: 'I32' } };
  const out = {};
  for (const [name, t] of Object.entries(result.tensors)) if (t.stage === stage) out[name] = { shape: t.shape, data: t.data };
  return out;
}

// state: the demo's (its result, and what made it: export/provenance.js).
export function exportStage(state, stage, format, anchorNode) {
  const { result } = state;
  const tensors = stageTensors(result, stage);
  const c = result.config;
  const base = `mha-${stage}`;
  if (format === 'csv') {
    download(new Blob([tensorsCsv(tensors, result.tokens)], { type: 'text/csv' }), `${base}.csv`, anchorNode);
    return;
  }
  const p = provenance(state);
  const meta = { text: result.text === null ? '' : result.text, ids: result.ids.join(','), tokens: JSON.stringify(result.tokens), model: p.model,
    d_model: c.dModel, heads: c.heads, kv_heads: c.kvHeads, causal: c.causal, stage };
  if (p.seed !== null) meta.seed = p.seed;
  if (p.layer !== null) meta.layer = result.layer;
  download(new Blob([tensorsSafetensors(tensors, meta)], { type: 'application/octet-stream' }), `${base}.safetensors`, anchorNode);
}
