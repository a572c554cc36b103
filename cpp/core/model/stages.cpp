#include "model/stages.h"


#include "base/error.h"

namespace mha {

namespace {

bool every_model(const Config&) { return true; }
bool blocks(const Config& c) { return has_blocks(c.preset); }
bool layer_norm(const Config& c) { return has_layer_norm(c.preset); }
bool mlp(const Config& c) { return has_mlp(c.preset); }
// Rotary position embeddings: a single layer whose llama-layout weights brought a base (config.h).
bool rotary(const Config& c) { return c.preset == Preset::single && c.rope_base > 0; }

// The rows in the enum's order: stage_spec(s) is row s.
constexpr StageSpec kStages[] = {
    {Stage::tokenize, "tokenize", "input", false, every_model},
    {Stage::embed, "embed", "input", false, every_model},
    {Stage::ln_1, "ln_1", "block", true, layer_norm},
    {Stage::project, "project", "qkv", true, every_model},
    {Stage::split, "split", "qkv", true, every_model},
    {Stage::rope, "rope", "qkv", true, rotary},
    {Stage::attend, "attend", "attend", true, every_model},
    {Stage::concat, "concat", "output", true, every_model},
    {Stage::output, "output", "output", true, every_model},
    {Stage::residual, "residual", "block", true, blocks},
    {Stage::ln_2, "ln_2", "block", true, layer_norm},
    {Stage::mlp, "mlp", "block", true, mlp},
    {Stage::mlp_residual, "mlp_residual", "block", true, mlp},
    {Stage::ln_f, "ln_f", "head", false, layer_norm},
    {Stage::logits, "logits", "head", false, blocks},
    {Stage::predict, "predict", "head", false, blocks},
};

constexpr bool rows_in_enum_order() {
  size_t i = 0;
  for (const StageSpec& s : kStages)
    if (static_cast<size_t>(s.stage) != i++) return false;
  return i == static_cast<size_t>(Stage::count);
}
static_assert(rows_in_enum_order(), "stage_table() must have one row per Stage, in the enum's order");

}  // namespace

const std::vector<StageSpec>& stage_table() {
  static const std::vector<StageSpec> table(std::begin(kStages), std::end(kStages));
  return table;
}

const std::vector<TensorSpec>& tensor_table() {
  static const std::vector<TensorSpec> table = {
      {"token_embedding", Stage::embed, "(1, T, d_model)", "one table row per id"},
      {"position_encoding", Stage::embed, "(1, T, d_model)", "where each token sits"},
      {"x", Stage::embed, "(1, T, d_model)", "token_embedding + position_encoding"},
      {"ln_1", Stage::ln_1, "(1, T, d_model)", "LayerNorm(block input): each row to mean 0, variance 1, then · γ + β"},
      {"ln_1_mean", Stage::ln_1, "(1, T)", "each row's mean", true},
      {"ln_1_rstd", Stage::ln_1, "(1, T)", "1 / √(each row's variance + ε)", true},
      {"q", Stage::project, "(1, T, d_model)", "x · W_Qᵀ + b_Q"},
      {"k", Stage::project, "(1, T, kv_heads·d_head)", "x · W_Kᵀ + b_K"},
      {"v", Stage::project, "(1, T, kv_heads·d_head)", "x · W_Vᵀ + b_V"},
      {"q_heads", Stage::split, "(1, heads, T, d_head)", "q cut into heads"},
      {"k_heads", Stage::split, "(1, kv_heads, T, d_head)", "k cut into key/value heads"},
      {"v_heads", Stage::split, "(1, kv_heads, T, d_head)", "v cut into key/value heads"},
      {"q_rot", Stage::rope, "(1, heads, T, d_head)",
       "q_heads turned by position t: dims i and i + d_head/2 by the angle t·base^(−2i/d_head)"},
      {"k_rot", Stage::rope, "(1, kv_heads, T, d_head)",
       "k_heads turned the same way; the scores use q_rot · k_rot, which sees positions only through their distance"},
      {"raw_scores", Stage::attend, "(1, heads, T, T)", "Q·Kᵀ / √d_head, before the mask"},
      {"scores", Stage::attend, "(1, heads, T, T)", "raw_scores + mask (−∞ above the diagonal when causal)"},
      {"weights", Stage::attend, "(1, heads, T, T)", "softmax(scores), each row sums to 1"},
      {"head_out", Stage::attend, "(1, heads, T, d_head)", "weights · V (a switched-off head: 0)"},
      {"concat", Stage::concat, "(1, T, d_model)", "heads side by side again"},
      {"y", Stage::output, "(1, T, d_model)", "concat · W_Oᵀ + b_O"},
      {"head_write", Stage::output, "(1, heads, T, d_model)",
       "head h's write: its d_head columns of concat · the d_head columns of W_O that read them; Σ_h head_write + b_O = y",
       false, true},
      {"resid_mid", Stage::residual, "(1, T, d_model)", "block input + y"},
      {"ln_2", Stage::ln_2, "(1, T, d_model)", "LayerNorm(resid_mid)"},
      {"ln_2_mean", Stage::ln_2, "(1, T)", "each row's mean", true},
      {"ln_2_rstd", Stage::ln_2, "(1, T)", "1 / √(each row's variance + ε)", true},
      {"mlp_pre", Stage::mlp, "(1, T, 4·d_model)", "ln_2 · W_fcᵀ + b_fc, before GELU", true},
      {"mlp_hidden", Stage::mlp, "(1, T, 4·d_model)", "GELU(mlp_pre)"},
      {"mlp_out", Stage::mlp, "(1, T, d_model)", "mlp_hidden · W_projᵀ + b_proj"},
      {"resid_out", Stage::mlp_residual, "(1, T, d_model)", "resid_mid + mlp_out"},
      {"ln_f", Stage::ln_f, "(1, T, d_model)", "LayerNorm(last block's output)"},
      {"ln_f_mean", Stage::ln_f, "(1, T)", "each row's mean", true},
      {"ln_f_rstd", Stage::ln_f, "(1, T)", "1 / √(each row's variance + ε)", true},
      {"logits", Stage::logits, "(1, T, readouts?, vocab)",
       "final · W_Uᵀ: a score per vocabulary entry (per readout, when a model predicts several tokens)"},
      {"probs", Stage::predict, "(1, T, readouts?, vocab)",
       "softmax(logits) over the vocabulary: the next token's probabilities (readout k − 1: the id at i − k)"},
  };
  return table;
}

const StageSpec& stage_spec(Stage stage) { return kStages[static_cast<size_t>(stage)]; }

const char* stage_name(Stage stage) { return stage_spec(stage).id; }

std::vector<Stage> stages_of(const Config& config) {
  std::vector<Stage> out;
  for (const StageSpec& spec : stage_table())
    if (spec.walked_by(config)) out.push_back(spec.stage);
  return out;
}

bool walks(const Config& config, Stage stage) { return stage_spec(stage).walked_by(config); }

std::map<std::string, int64_t> shape_dims(const Config& c, int T) {
  return {{"B", 1},
          {"T", T},
          {"d_model", c.d_model},
          {"heads", c.heads},
          {"kv_heads", c.kv_heads_or_heads()},
          {"d_head", c.d_head()},
          {"vocab", c.vocab_size},
          {"readouts", c.readouts},
          {"positions", c.max_positions}};
}

int64_t trace_floats(const Config& config, int T, bool training) {
  const std::map<std::string, int64_t> dims = shape_dims(config, T);
  int64_t total = 0;
  for (const TensorSpec& t : tensor_table()) {
    if (!walks(config, t.stage) || (training && t.made_when_read)) continue;
    int64_t n = 1;
    for (int64_t d : evaluate_shape(t.shape, dims)) n *= d;
    total += n * (stage_spec(t.stage).per_layer ? config.layers : 1);
  }
  return total;
}

int layer_of(const std::string& name) {
  if (name.rfind("layers.", 0) != 0) return -1;
  return std::stoi(name.substr(7));
}

std::string_view base_name(const std::string& name) {
  const std::string_view view = name;
  if (view.substr(0, 7) != "layers.") return view;
  const size_t dot = view.find('.', 7);
  return dot == std::string_view::npos ? view : view.substr(dot + 1);
}

std::string layer_name(int layer, const char* name) {
  return layer < 0 ? std::string(name) : "layers." + std::to_string(layer) + "." + name;
}

const TensorSpec* find_tensor_spec(const std::string& name) {
  const std::string_view base = base_name(name);
  for (const TensorSpec& spec : tensor_table())
    if (base == spec.name) return &spec;
  return nullptr;
}

Shape evaluate_shape(const std::string& expression, const std::map<std::string, int64_t>& dims) {
  if (expression.size() < 2 || expression.front() != '(' || expression.back() != ')')
    throw Error("shape expression '" + expression + "' is not in parentheses");
  // Split by hand: a string stream would bring the C++ locales into the WebAssembly module (~60 KB).
  const auto trimmed = [](std::string s) {
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
  };
  const auto split = [](const std::string& s, const std::string& by) {
    std::vector<std::string> out;
    for (size_t begin = 0;;) {
      const size_t end = s.find(by, begin);
      out.push_back(s.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
      if (end == std::string::npos) return out;
      begin = end + by.size();
    }
  };
  Shape shape;
  for (std::string part : split(expression.substr(1, expression.size() - 2), ",")) {
    part = trimmed(part);
    if (part.empty()) continue;  // "(d_model,)": a trailing comma
    // "readouts?": a dimension there only when it is more than 1, so a next-token model's logits
    // stay (1, T, vocab) and a recall model's are (1, T, readouts, vocab).
    const bool only_above_one = part.back() == '?';
    if (only_above_one) part.pop_back();
    int64_t size = 1;
    for (const std::string& raw : split(part, "\xC2\xB7")) {  // factors joined by "·" (UTF-8 C2 B7)
      const std::string factor = trimmed(raw);
      if (!factor.empty() && factor.find_first_not_of("0123456789") == std::string::npos) {
        size *= std::stoll(factor);
        continue;
      }
      const auto it = dims.find(factor);
      if (it == dims.end()) throw Error("shape expression '" + expression + "' names an unknown size '" + factor + "'");
      size *= it->second;
    }
    if (!only_above_one || size > 1) shape.push_back(size);
  }
  return shape;
}

}  // namespace mha
