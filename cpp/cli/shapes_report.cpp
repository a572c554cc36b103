#include "shapes_report.h"

#include <cstdio>
#include <vector>

#include "model/kv_cache.h"
#include "model/stages.h"

namespace mha_cli {

namespace {

std::string format(const char* fmt, const std::string& a, const std::string& b, const std::string& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, a.c_str(), b.c_str(), c.c_str());
  return buf;
}

std::string model_line(const mha::Config& c) {
  using std::to_string;
  std::string out = mha::has_blocks(c.preset)
                        ? std::string(mha::preset_name(c.preset)) + " model: " + to_string(c.layers) + " layers, "
                        : "multi-head attention: ";
  out += "d_model " + to_string(c.d_model) + ", heads " + to_string(c.heads) + ", d_head " + to_string(c.d_head()) +
         ", kv_heads " + to_string(c.kv_heads_or_heads());
  if (mha::has_blocks(c.preset)) out += ", vocab " + to_string(c.vocab_size);
  if (c.rope_base > 0) {
    char base[32];
    std::snprintf(base, sizeof base, "%.10g", static_cast<double>(c.rope_base));  // 10000, not 10000.0
    out += ", RoPE base " + std::string(base);
  }
  return out + (c.causal ? ", causal mask" : ", no mask") + "\n\n";
}

// What decoding would keep of these T tokens: every layer's k_heads and v_heads.
std::string kv_cache_line(const mha::Config& c, int T) {
  using std::to_string;
  const int kv = c.kv_heads_or_heads(), group = c.heads / kv;
  std::string out = "KV cache of these " + to_string(T) + " tokens: k and v " +
                    mha::shape_to_string({1, kv, T, c.d_head()}) + " per layer; 2 × " + to_string(c.layers) +
                    (c.layers == 1 ? " layer × " : " layers × ") + to_string(kv) + " kv_heads × " + to_string(c.d_head()) +
                    " d_head × 4 bytes × " + to_string(T) + " tokens = " +
                    to_string(mha::kv_cache_bytes(c.layers, kv, c.d_head(), 4, T)) + " bytes";
  if (group > 1)
    out += "; each K/V head serves " + to_string(group) + " query heads: 1/" + to_string(group) + " of multi-head attention's";
  return out + "\n";
}

}  // namespace

std::string shapes_report(const mha::Trace& trace, const mha::Config& c, const std::string& text) {
  using std::to_string;
  std::string out = model_line(c);

  // Stages are numbered in walk order among those this model has: layer 1's project has the number
  // of layer 0's.
  std::vector<int> number(mha::stage_table().size(), 0);
  int next = 1;
  number[static_cast<size_t>(mha::Stage::tokenize)] = next++;
  for (const mha::StageSpec& spec : mha::stage_table())
    for (const mha::TraceEntry& e : trace.entries())
      if (e.stage == spec.stage && number[static_cast<size_t>(spec.stage)] == 0) number[static_cast<size_t>(spec.stage)] = next++;

  out += "1 tokenize\n";
  if (trace.tokens.empty()) {
    out += "    (started from an input tensor x)\n";
  } else {
    std::string tokens, ids;
    for (size_t i = 0; i < trace.tokens.size(); ++i) {
      tokens += (i ? " | " : "") + trace.tokens[i];
      ids += (i ? ", " : "") + to_string(trace.ids[i]);
    }
    if (!text.empty()) out += "    \"" + text + "\" -> ";
    else out += "    ";
    out += to_string(trace.tokens.size()) + (trace.tokens.size() == 1 ? " token: " : " tokens: ") + tokens + "\n";
    out += "    ids: [" + ids + "]\n";
  }

  mha::Stage current = mha::Stage::tokenize;
  int layer = -1;
  for (const mha::TraceEntry& e : trace.entries()) {
    const mha::TensorSpec* spec = mha::find_tensor_spec(e.name);
    if (spec && spec->for_backward) continue;  // LayerNorm's statistics: for the backward pass, not the lesson
    const bool per_layer = e.layer >= 0;
    if (per_layer && e.layer != layer) {
      layer = e.layer;
      out += "layer " + to_string(layer) + "\n";
      current = mha::Stage::tokenize;
    }
    if (!per_layer && layer >= 0) layer = -1;
    const std::string indent = per_layer ? "  " : "";
    if (e.stage != current) {
      current = e.stage;
      out += indent + to_string(number[static_cast<size_t>(current)]) + " " + mha::stage_name(current) + "\n";
    }
    out += indent + format("    %-24s %-18s %s\n", e.name, mha::shape_to_string(e.tensor.shape), spec ? spec->formula : "");
  }

  const std::string prefix = mha::has_blocks(c.preset) ? "layers.0." : "";
  if (trace.has(prefix + "q_heads")) {
    out += "\nshape flow: " + mha::shape_to_string(trace.get("x").shape) + " -> " +
           mha::shape_to_string(trace.get(prefix + "q_heads").shape) + " -> " +
           mha::shape_to_string(trace.get(prefix + "weights").shape) + " -> " +
           mha::shape_to_string(trace.get(prefix + "y").shape) + "\n";
  }
  out += "d_model " + to_string(c.d_model) + " = " + to_string(c.heads) + " heads × d_head " + to_string(c.d_head()) +
         ": the heads split the width, they do not copy it\n";
  if (!trace.ids.empty()) out += kv_cache_line(c, static_cast<int>(trace.ids.size()));
  return out;
}

}  // namespace mha_cli
