// Every parameter of a model, declared once (llm.c's ParameterTensors and its size table, with where
// each one lies in a file): its name, its shape, which kinds of model have it, how random weights
// draw it, its tensor in each file layout and, for a matrix, the packing the SIMD kernels read it
// from. The visitor, the checks, random initialisation, packing, the file writer and both file
// readers (the streaming builder and the single-layer loader) read this table and nothing else.
// Adding a parameter: a row here, a field in weights.h, its use in forward.cpp and backward.cpp.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/config.h"
#include "model/weights.h"

namespace mha {

enum class Init {
  spread,           // random matrices: uniform with the spread of normal(0, init_std) (Xavier for a single layer)
  residual_spread,  // the same with init_std / √(2·layers): projections into the residual stream, as GPT-2 does
  ones,             // LayerNorm's γ
  zeros,            // biases, LayerNorm's β
};

// Where a parameter lies in one file layout. Several parameters may share a tensor (GPT-2's c_attn
// holds W_Q, W_K and W_V): they follow each other along its output dimension, in table order.
struct FileTensor {
  const char* name = nullptr;  // under the block's prefix for a per-layer row; null: not in this layout
  bool transposed = false;     // stored (in, out), as GPT-2's Conv1D does; else (out, in) as nn.Linear
  bool optional = false;       // may be absent, meaning zeros (Llama's biases)
  bool top_level = false;      // outside the model's root, as Hugging Face keeps lm_head
};

enum class FileLayout { model, pytorch, llama };  // model: the files of presets with blocks (and a GPT-2 layer)

struct ParameterSpec {
  const char* name;  // "attn.w_q"; per layer: h.{i}.attn.w_q (the names of gradient and optimiser files)
  bool per_layer;
  const char* shape;                // "(kv_heads·d_head, d_model)", in the names of shape_dims()
  bool (*present)(const Config&);   // which models have it
  Init init;
  FileTensor model_file, pytorch, llama;
  Tensor& (*tensor)(ModelWeights&, int layer);
  // The packing it is kept in (its rows are columns of B = Wᵀ there), or null: kept as a tensor.
  PackedMatrix* (*packed)(PreparedModel&, int layer, const Config&);
};

// In order: the model-level rows before the blocks (wte, wpe), one block's rows, then the rows after.
const std::vector<ParameterSpec>& parameter_table();
const FileTensor& file_tensor(const ParameterSpec& spec, FileLayout layout);

Shape parameter_shape(const ParameterSpec& spec, const Config& config);

// A parameter of read-only weights (the table's accessors take them writable).
const Tensor& parameter_of(const ModelWeights& weights, const ParameterSpec& spec, int layer);

// Every parameter the config has, in table order, with its stable name (wte, h.0.attn.w_q, …).
void for_each_parameter(ModelWeights& weights, const Config& config,
                        const std::function<void(const std::string& name, const ParameterSpec& spec, Tensor& tensor)>& fn);
void for_each_parameter(const ModelWeights& weights, const Config& config,
                        const std::function<void(const std::string& name, const ParameterSpec& spec, const Tensor& tensor)>& fn);

// How many numbers the config's parameters hold, counted from the table: the same for every head
// count of one d_model, as the heads split it.
int64_t parameter_count(const Config& config);

// Zero-filled tensors of every parameter's shape (gradients, optimiser moments).
ModelWeights zeros_like(const Config& config);

// Throws mha::Error naming the first parameter whose shape does not fit the config, or which is not finite.
void check_model_weights(const ModelWeights& weights, const Config& config);

// Random weights from config.seed, each matrix from its own stream of the seed (fixed forever, so a
// seed keeps drawing the same model). Models with blocks: Init as the table says, init_std the
// spread. A single layer: Xavier/Glorot uniform matrices, as nn.MultiheadAttention draws them.
ModelWeights random_weights(const Config& config, float init_std);

// Xavier/Glorot uniform bound for a (fan_out, fan_in) matrix: sqrt(6 / (fan_in + fan_out)).
float xavier_bound(int fan_in, int fan_out);

// The matrices packed (and the qkv bias gathered) for the SIMD path; `weights` unchanged.
PreparedModel prepare_model(const ModelWeights& weights, const Config& config);
// Packs `weights` (a single layer's too), freeing each matrix once it is packed: the peak is the
// weights and one block's packing.
PackedModel pack_model(ModelWeights weights, const Config& config);
// Every parameter as a tensor again, bit for bit: what the scalar path, files and accessors read.
ModelWeights unpack_model(const PackedModel& model, const Config& config);
// W_Q | W_K | W_V's biases as the packing's columns: b_Q, b_K, b_V one after the other.
std::vector<float> qkv_bias_of(const AttentionWeights& attention);

// A tensor of a file as the table lays it out: which parameters it holds, one after another along
// W's output dimension, and whether it is stored transposed. `prefix` is the block's ("h.3." in a
// gpt2 file) or the model's ("" or "transformer.").
struct FileTensorParts {
  std::string name;  // the full name in the file
  bool transposed = false, optional = false;
  int layer = -1;
  std::vector<const ParameterSpec*> parts;
  std::vector<int64_t> offsets, rows;  // each part's first row of the stacked W, and its rows
  int64_t out = 0, in = 0;             // the stacked W is (out, in); in = 0 for a vector
  Shape file_shape() const;            // (out, in), (in, out) when transposed, or (out)
};
// Every tensor a whole model's file holds (gpt2 or attn-only: FileLayout::model), in table order,
// blocks under root + "h.{i}." (root: "" or Hugging Face's "transformer."; lm_head is never under it).
std::vector<FileTensorParts> model_file_tensors(const Config& config, const std::string& root);
// The tensors of one attention layer in `layout`, under `prefix` ("layers.3.self_attn." and the like).
std::vector<FileTensorParts> layer_file_tensors(const Config& config, FileLayout layout, const std::string& prefix);

// Splits the file values [first, first + count) of `tensor` into runs that each lie in one part and
// calls fn(part, row, column, at, count, along_row) for each: the run is the file's values from flat
// index `at`, which are W's entries of that part from (row, column) on, along W's row (along_row) or
// down its column (a transposed file). A vector's entry i is (i, 0), down its column.
void for_each_run(const FileTensorParts& tensor, size_t first, size_t count,
                  const std::function<void(size_t part, int64_t row, int64_t column, size_t at, size_t count,
                                           bool along_row)>& fn);
// The column of its packing where a packed parameter's rows start (W_K's after W_Q's in qkv), and
// the packing's width: every row of the parameters that share it.
int packed_offset(const ParameterSpec& spec, const Config& config);
int packed_width(const ParameterSpec& spec, const Config& config);

}  // namespace mha
