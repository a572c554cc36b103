// The one table of stages and tensors. Every intermediate of a forward pass is declared here once,
// with its stage, its shape and its formula; the trace, the CLI's `shapes` report, the WebAssembly
// module (and through it the page) and the tests all read this table, so adding a stage means: a row
// here (saying which kinds of model walk it), the kernel that fills it, one view and its strings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/config.h"
#include "base/tensor.h"

namespace mha {

// In the order a learner walks them, which is the order of stage_table()'s rows (checked when
// stages.cpp compiles). Stages marked per_layer repeat for every block.
enum class Stage {
  tokenize, embed,                                              // text -> ids -> x
  ln_1, project, split, rope, attend, concat, output, residual, // each block: attention
  ln_2, mlp, mlp_residual,                                      // each block: MLP (GPT-2)
  ln_f, logits, predict,                                        // after the last block
  count,                                                        // how many there are
};

struct StageSpec {
  Stage stage;
  const char* id;      // "attend": the page's data-stage and the trace file's stage names
  const char* family;  // input | qkv | attend | output | block | head: the page colours stages by family
  bool per_layer;
  bool (*walked_by)(const Config&);  // which models have it: by their preset (config.h) or, for rope, their weights
};

struct TensorSpec {
  const char* name;     // the trace name; per-layer tensors are recorded as layers.{i}.{name}
  Stage stage;
  const char* shape;    // "(1, heads, T, T)", in the names of shape_dims(); the 1 is the batch; "readouts?": only when > 1
  const char* formula;  // one line a learner can read
  bool for_backward = false;  // kept for the backward pass (LayerNorm's statistics, the MLP before GELU), not drawn
  bool made_when_read = false;  // deferred (Trace::defer) by a run that keeps its weights: training has none
};

// Every stage and every tensor, in walk order. A model records the subset its architecture has.
const std::vector<StageSpec>& stage_table();
const std::vector<TensorSpec>& tensor_table();
const StageSpec& stage_spec(Stage stage);
// The stages a model walks, in table order: the rows whose walked_by holds for its config.
std::vector<Stage> stages_of(const Config& config);
bool walks(const Config& config, Stage stage);
const char* stage_name(Stage stage);
// The spec of a trace name: "q" and "layers.3.q" both give q's row. Null for an unknown name.
const TensorSpec* find_tensor_spec(const std::string& name);

// The named sizes shape expressions use (this table's and parameters.h's): d_model, heads, kv_heads,
// d_head, vocab, positions, and T and B.
std::map<std::string, int64_t> shape_dims(const Config& config, int T = 0);

// A shape expression evaluated with named sizes: "(1, T, 4·d_model)" with {T: 5, d_model: 8} ->
// (1, 5, 32). A dimension marked "?" is there only when it is more than 1: "(1, T, readouts?, vocab)"
// is (1, T, vocab) for readouts 1. Throws mha::Error for an unknown name, so a typo in the table fails the tests.
Shape evaluate_shape(const std::string& expression, const std::map<std::string, int64_t>& dims);

// The floats one run of T tokens records (batch 1): every tensor of the stages the config walks,
// per-layer ones once per block. What a batch of B sequences holds is B times this. A training step
// records no tensor made when read (training = true leaves them out).
int64_t trace_floats(const Config& config, int T, bool training = false);

// "layers.3.q" -> 3; "x" -> -1.
int layer_of(const std::string& name);
// "layers.3.q" -> "q": a view into name (a trace compares it on every slot), never of a temporary.
std::string_view base_name(const std::string& name);
std::string_view base_name(std::string&&) = delete;
std::string layer_name(int layer, const char* name);  // (-1, "x") -> "x"; (3, "q") -> "layers.3.q"

}  // namespace mha
