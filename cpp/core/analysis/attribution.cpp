#include "analysis/attribution.h"

#include <algorithm>
#include <string>

#include "base/error.h"
#include "model/weights.h"

namespace mha {

const char* part_kind_name(LogitPart::Kind kind) {
  switch (kind) {
    case LogitPart::Kind::embedding: return "embedding";
    case LogitPart::Kind::head: return "head";
    case LogitPart::Kind::mlp: return "mlp";
    case LogitPart::Kind::bias: return "bias";
  }
  return "";
}

LogitAttribution attribute_logit(const Trace& trace, const Config& c, int position, int32_t token) {
  using std::to_string;
  if (!has_blocks(c.preset)) throw Error(ErrorCode::needs_blocks, "model");
  if (c.readouts > 1) throw Error(ErrorCode::needs_next_token, "model", {{"readouts", std::to_string(c.readouts)}});
  if (!trace.weights) throw Error("internal: attribution reads a Model's run, whose trace keeps its weights");
  const Tensor& logits = trace.get(-1, "logits");
  const int T = static_cast<int>(logits.shape[1]), V = c.vocab_size, d = c.d_model, H = c.heads;
  if (logits.shape[0] != 1) throw Error("internal: attribution reads a run of one sequence");
  if (position == -1) position = T - 1;
  if (position < 0 || position >= T)
    throw Error(ErrorCode::position_outside_text, "position", {{"position", to_string(position)}, {"last", to_string(T - 1)}});
  const float* row = logits.ptr() + static_cast<size_t>(position) * V;
  if (token == -1) token = static_cast<int32_t>(std::max_element(row, row + V) - row);
  if (token < 0 || token >= V)
    throw Error(ErrorCode::token_outside_vocabulary, "token",
                {{"id", to_string(token)}, {"position", to_string(position)}, {"vocab", to_string(V)}});

  const PackedModel& w = *trace.weights;
  std::vector<float> u(static_cast<size_t>(d));
  packed_get_column(w.packed.unembedding, token, u.data());  // the token's unembedding row
  // How a vector written into the stream at `position` reaches the logit: through ln_f with its 1/σ
  // held (centred, · 1/σ · γ), or straight into the unembedding.
  const bool layer_norm = has_layer_norm(c.preset);
  const float rstd = layer_norm ? trace.get(-1, "ln_f_rstd").ptr()[position] : 1.0f;
  const auto read = [&](const auto* v) {
    double mean = 0, sum = 0;
    if (layer_norm)
      for (int i = 0; i < d; ++i) mean += v[i];
    mean /= d;
    for (int i = 0; i < d; ++i)
      sum += (v[i] - mean) * (layer_norm ? rstd * static_cast<double>(w.rest.ln_f_weight.data[i]) : 1.0) * u[i];
    return sum;
  };
  const size_t at = static_cast<size_t>(position) * d;

  LogitAttribution out{position, token, row[token], {}};
  out.parts.push_back({LogitPart::Kind::embedding, -1, -1, read(trace.get(-1, "x").ptr() + at)});
  std::vector<double> biases(static_cast<size_t>(d), 0.0), mlp(static_cast<size_t>(d));
  for (int l = 0; l < c.layers; ++l) {
    const Tensor& writes = trace.get(l, "head_write");  // (1, H, T, d)
    for (int h = 0; h < H; ++h)
      out.parts.push_back({LogitPart::Kind::head, l, h, read(writes.ptr() + static_cast<size_t>(h) * T * d + at)});
    const Tensor& b_o = w.rest.blocks[l].attention.b_o;
    for (int i = 0; i < d && !b_o.data.empty(); ++i) biases[i] += b_o.data[i];
  }
  for (int l = 0; l < c.layers && has_mlp(c.preset); ++l) {
    const float* mlp_out = trace.get(l, "mlp_out").ptr() + at;
    const Tensor& b_proj = w.rest.blocks[l].b_proj;
    for (int i = 0; i < d; ++i) {
      const double bias = b_proj.data.empty() ? 0.0 : b_proj.data[i];
      mlp[i] = mlp_out[i] - bias;
      biases[i] += bias;
    }
    out.parts.push_back({LogitPart::Kind::mlp, l, -1, read(mlp.data())});
  }
  double bias = read(biases.data());
  for (int i = 0; i < d && layer_norm; ++i) bias += static_cast<double>(w.rest.ln_f_bias.data[i]) * u[i];
  out.parts.push_back({LogitPart::Kind::bias, -1, -1, bias});
  return out;
}

std::vector<LogitAttribution> attribute_each_position(const Trace& trace, const Config& c) {
  std::vector<LogitAttribution> out;
  const int T = has_blocks(c.preset) ? static_cast<int>(trace.get(-1, "logits").shape[1]) : 1;  // a single layer: its error
  for (int position = 0; position < T; ++position) out.push_back(attribute_logit(trace, c, position));
  return out;
}

nlohmann::json attribution_to_json(const LogitAttribution& a) {
  nlohmann::json parts = nlohmann::json::array();
  for (const LogitPart& p : a.parts) {
    nlohmann::json part = {{"kind", part_kind_name(p.kind)}};
    if (p.layer >= 0) part["layer"] = p.layer;
    if (p.head >= 0) part["head"] = p.head;
    part["value"] = p.value;
    parts.push_back(part);
  }
  return {{"position", a.position}, {"token", a.token}, {"logit", a.logit}, {"parts", parts}};
}

}  // namespace mha
