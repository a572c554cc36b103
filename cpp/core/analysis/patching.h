// Activation patching (Meng et al. 2022; Heimersheim and Nanda 2024, "How to use and interpret
// activation patching"): run a corrupted text, but with one activation taken from the run of a clean
// text of the same length, and see how much of the clean answer comes back. The metric is the logit
// difference at the last position, m = logit[answer] − logit[wrong]; a patch's recovery is
//   (m_patched − m_corrupt) / (m_clean − m_corrupt)
// (1: the patch alone restores the clean answer; 0: it changes nothing). Patched, one at a time:
//   every head's z (head_out, at every position), TransformerLens's hook_z;
//   every row of the residual stream entering every block (x for block 0, the last block's output
//   after), TransformerLens's hook_resid_pre at each (layer, position).
// Every patched run is the one forward (forward.h), told by ForwardOptions::patch what to take.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "model/model.h"

namespace mha {

struct PatchResult {
  int32_t answer = 0, wrong = 0;
  double m_clean = 0, m_corrupt = 0;
  std::vector<std::vector<double>> heads;     // [layer][head]
  std::vector<std::vector<double>> residual;  // [layer][position]: the stream entering block `layer`
};

// answer −1: the clean run's first choice at the last position; wrong −1: the corrupted run's, or
// where that is the answer too, the token whose logit the change raised most (w ≠ answer).
// mha::Error: needs_blocks, needs_next_token, patch_lengths_differ, patch_token_outside_vocabulary,
// patch_no_difference (m_clean = m_corrupt), and the ids' own (check_ids).
PatchResult patch_activations(const Model& model, const std::vector<int32_t>& clean, const std::vector<int32_t>& corrupt,
                              int32_t answer = -1, int32_t wrong = -1);

// One run of `ids` with `patch` (its values another run's), refilling `trace`.
void run_patched(Trace& trace, const Model& model, const std::vector<int32_t>& ids, const ActivationPatch& patch);

// What a patch of `kind` at (layer, head or position) takes from the run `source`: a pointer into its
// head_out (T, d_head) or into the residual stream entering block `layer` (d_model).
ActivationPatch patch_from(const Trace& source, const Config& config, ActivationPatch::Kind kind, int layer, int index);

// {"answer", "wrong", "m_clean", "m_corrupt", "heads": [{"layer", "head", "recovery"}], "residual":
// [{"layer", "position", "recovery"}]}
nlohmann::json patching_to_json(const PatchResult& result);

}  // namespace mha
