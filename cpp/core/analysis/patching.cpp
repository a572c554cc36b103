#include "analysis/patching.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace mha {

namespace {

// logit[answer] − logit[wrong] at the last position (readout 1), in double.
double metric(const Trace& trace, int32_t answer, int32_t wrong, int V) {
  const Tensor& logits = trace.get(-1, "logits");
  const float* row = logits.ptr() + logits.numel() - static_cast<size_t>(V);
  return static_cast<double>(row[answer]) - static_cast<double>(row[wrong]);
}

const float* last_row(const Trace& trace, int V) {
  const Tensor& logits = trace.get(-1, "logits");
  return logits.ptr() + logits.numel() - static_cast<size_t>(V);
}

int32_t first_choice(const Trace& trace, int V) {
  const float* row = last_row(trace, V);
  return static_cast<int32_t>(std::max_element(row, row + V) - row);
}

// The token the patching compares the answer with: the corrupted run's first choice; where that is
// still the answer (on real text most single changes leave the next token as it was), the token the
// change raised most against it — the largest rise of logit[w] from the clean run to the corrupted
// one, w ≠ answer — which makes m_clean − m_corrupt as large as any choice of w can.
int32_t default_wrong(const Trace& clean, const Trace& corrupt, int32_t answer, int V) {
  const int32_t first = first_choice(corrupt, V);
  if (first != answer) return first;
  const float *before = last_row(clean, V), *after = last_row(corrupt, V);
  int32_t best = answer == 0 ? 1 : 0;
  for (int32_t w = 0; w < V; ++w)
    if (w != answer && static_cast<double>(after[w]) - before[w] > static_cast<double>(after[best]) - before[best]) best = w;
  return best;
}

void check_token(int32_t id, const char* field, const Config& c) {
  if (id < 0 || id >= c.vocab_size)
    throw Error(ErrorCode::patch_token_outside_vocabulary, field, {{"id", std::to_string(id)}, {"vocab", std::to_string(c.vocab_size)}});
}

}  // namespace

ActivationPatch patch_from(const Trace& source, const Config& c, ActivationPatch::Kind kind, int layer, int index) {
  ActivationPatch p;
  p.kind = kind;
  p.layer = layer;
  if (kind == ActivationPatch::Kind::head_z) {
    const Tensor& z = source.get(layer, "head_out");  // (1, heads, T, d_head)
    p.head = index;
    p.values = z.ptr() + static_cast<size_t>(index) * z.shape[2] * z.shape[3];
    return p;
  }
  const Tensor& stream = layer == 0 ? source.get(-1, "x") : source.get(layer - 1, has_mlp(c.preset) ? "resid_out" : "resid_mid");
  p.position = index;
  p.values = stream.ptr() + static_cast<size_t>(index) * c.d_model;
  return p;
}

void run_patched(Trace& trace, const Model& model, const std::vector<int32_t>& ids, const ActivationPatch& patch) {
  ForwardOptions options;
  options.patch = &patch;
  const PackedModel& w = model.packed_weights();
  model_forward(trace, ids, 1, static_cast<int>(ids.size()), w.rest, w.packed, model.config(), options);
}

PatchResult patch_activations(const Model& model, const std::vector<int32_t>& clean, const std::vector<int32_t>& corrupt,
                              int32_t answer, int32_t wrong) {
  const Config& c = model.config();
  if (!has_blocks(c.preset)) throw Error(ErrorCode::needs_blocks, "model");
  if (c.readouts > 1) throw Error(ErrorCode::needs_next_token, "model", {{"readouts", std::to_string(c.readouts)}});
  if (clean.size() != corrupt.size())
    throw Error(ErrorCode::patch_lengths_differ, "corrupt",
                {{"clean", std::to_string(clean.size())}, {"corrupt", std::to_string(corrupt.size())}});
  if (answer != -1) check_token(answer, "answer", c);
  if (wrong != -1) check_token(wrong, "wrong", c);
  const int V = c.vocab_size, T = static_cast<int>(clean.size());
  const Trace clean_run = model.run_ids(clean), corrupt_run = model.run_ids(corrupt);
  PatchResult out;
  out.answer = answer == -1 ? first_choice(clean_run, V) : answer;
  out.wrong = wrong == -1 ? default_wrong(clean_run, corrupt_run, out.answer, V) : wrong;
  out.m_clean = metric(clean_run, out.answer, out.wrong, V);
  out.m_corrupt = metric(corrupt_run, out.answer, out.wrong, V);
  const double difference = out.m_clean - out.m_corrupt;
  if (difference == 0)
    throw Error(ErrorCode::patch_no_difference, "corrupt",
                {{"answer", std::to_string(out.answer)}, {"wrong", std::to_string(out.wrong)}, {"metric", std::to_string(out.m_clean)}});

  Trace patched;
  const auto recovery = [&](ActivationPatch::Kind kind, int layer, int index) {
    run_patched(patched, model, corrupt, patch_from(clean_run, c, kind, layer, index));
    return (metric(patched, out.answer, out.wrong, V) - out.m_corrupt) / difference;
  };
  for (int l = 0; l < c.layers; ++l) {
    out.heads.emplace_back();
    for (int h = 0; h < c.heads; ++h) out.heads.back().push_back(recovery(ActivationPatch::Kind::head_z, l, h));
    out.residual.emplace_back();
    for (int t = 0; t < T; ++t) out.residual.back().push_back(recovery(ActivationPatch::Kind::resid_pre, l, t));
  }
  return out;
}

nlohmann::json patching_to_json(const PatchResult& r) {
  nlohmann::json heads = nlohmann::json::array(), residual = nlohmann::json::array();
  for (size_t l = 0; l < r.heads.size(); ++l)
    for (size_t h = 0; h < r.heads[l].size(); ++h) heads.push_back({{"layer", l}, {"head", h}, {"recovery", r.heads[l][h]}});
  for (size_t l = 0; l < r.residual.size(); ++l)
    for (size_t t = 0; t < r.residual[l].size(); ++t)
      residual.push_back({{"layer", l}, {"position", t}, {"recovery", r.residual[l][t]}});
  return {{"answer", r.answer}, {"wrong", r.wrong}, {"m_clean", r.m_clean}, {"m_corrupt", r.m_corrupt},
          {"heads", heads}, {"residual", residual}};
}

}  // namespace mha
