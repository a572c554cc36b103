// What a head reads and writes, from its weights alone (Elhage et al. 2021, "A Mathematical
// Framework for Transformer Circuits"; TransformerLens's conventions). Row vectors, x · W. For head
// h of layer l, with d = d_model and D = d_head:
//   W_Q^h, W_K^h, W_V^h (d, D)   the columns of W_Qᵀ, W_Kᵀ, W_Vᵀ that make the head's q, k, v
//   W_O^h (D, d)                 the rows of W_Oᵀ that read the head's z
//   W_QK = W_Q^h W_K^hᵀ, W_OV = W_V^h W_O^h   (d, d)
// GPT-2's LayerNorms are folded (TransformerLens's fold_ln, without its centring): ln_1's γ
// multiplies the rows of W_Q, W_K and W_V, and the unembedding W_U (d, vocab) carries ln_f's γ.
// Biases are left out. W_E (vocab, d) and W_pos (positions, d) are the model's tables.
//
//   composition of head A into a later head B: ‖L·R‖_F / (‖L‖_F ‖R‖_F), L = W_OV^A and
//     Q: R = W_QK^B   (A writes what B's queries read)
//     K: R = W_QK^Bᵀ  (what B's keys read: the induction head's previous-token input)
//     V: R = W_OV^B   (what B's values read)
//   its baseline: the mean of the same score over pairs of heads whose W_Q, W_K, W_V, W_O are
//     Gaussian (kCompositionBaselineDraws pairs, seed kCompositionBaselineSeed): about 1/√d.
//   copying score: Σ Re λ / Σ |λ| over the eigenvalues of the OV circuit W_E W_OV W_U (vocab,
//     vocab), whose nonzero ones are those of W_OV W_U W_E (d, d) and of W_O W_U W_E W_V (D, D),
//     the matrix solved: +1 when the head raises the logit of the token it attends to.
//   QK circuit over a text: positional W_pos W_QK W_posᵀ (query position i, key position j: a
//     previous-token head is a stripe at j = i − 1) and token W_E W_QK W_Eᵀ (query token, key
//     token), unscaled by 1/√D.
//   OV table over a text: W_E W_OV W_U (source token, raised token).
// Each number is summed in double from the model's float weights.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "model/model.h"

namespace mha {

constexpr int kCompositionBaselineDraws = 32;
constexpr uint64_t kCompositionBaselineSeed = 1;
constexpr int kOvTop = 5;  // how many tokens of the vocabulary the OV table names per source token

enum class CompositionMode { q, k, v };
const char* composition_mode_name(CompositionMode mode);  // "Q", "K", "V"

struct CompositionScore {
  CompositionMode mode;
  int from_layer, from_head, to_layer, to_head;
  double score;
};

struct CircuitScores {
  std::vector<std::vector<double>> copying;  // [layer][head]
  // Every head A into every head B of a later layer: mode Q, then K, then V; within a mode by B's
  // layer, A's layer, A's head, B's head.
  std::vector<CompositionScore> composition;
  double baseline[3] = {0, 0, 0};  // Q, K, V
};

// A model of at least two layers of blocks (mha::Error: needs_blocks, composition_needs_two_layers).
CircuitScores circuit_scores(const Model& model);

struct HeadCircuit {
  int layer = 0, head = 0;
  std::vector<int32_t> tokens;        // the text's ids, each once, in the order they first appear (n)
  int positions = 0;                  // the text's length T
  std::vector<double> qk_positional;  // (T, T): query position, key position
  std::vector<double> qk_token;       // (n, n): query token, key token
  std::vector<double> ov;             // (n, n): source token, raised token
  std::vector<std::vector<std::pair<int32_t, double>>> ov_top;  // per source token, kOvTop of the vocabulary, largest first
};

// Head `head` of layer `layer` over the text `ids` (ids within the vocabulary, at most the model's
// positions; mha::Error no_such_head for a head the model does not have).
HeadCircuit head_circuit(const Model& model, const std::vector<int32_t>& ids, int layer, int head);

// {"copying": [{"layer", "head", "score"}], "composition": [{"mode", "from": [l, h], "to": [l, h],
// "score"}], "baseline": {"Q", "K", "V"}}
nlohmann::json circuits_to_json(const CircuitScores& scores);
// {"layer", "head", "tokens", "qk_positional": [[…]], "qk_token": [[…]], "ov": [[…]], "ov_top": [[[id, value], …]]}
nlohmann::json head_circuit_to_json(const HeadCircuit& circuit);

}  // namespace mha
