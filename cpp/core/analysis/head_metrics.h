// What a head does, measured from its attention weights a[i][j] (rows i = 0 … T−1, each a
// distribution over the positions j it may attend to: j ≤ i when causal). Every metric is a mean over
// the rows that qualify, and null (std::nullopt) when none does (T = 1, or no repeated token).
//   entropy              mean over i ≥ 1 of H_i / ln(n_i), H_i = −Σ_j a_ij ln a_ij; n_i = allowed positions
//                        (rows with n_i = 1 carry no information and are skipped). 0 = one token, 1 = uniform.
//   self                 mean over i ≥ 1 of a[i][i] (row 0 of a causal head has nowhere else to look)
//   previous_token       mean over i ≥ 1 of a[i][i−1]
//   first_token          mean over i ≥ 1 of a[i][0] (the "attention sink"); each of these three beside its
//                        chance, the mean over i ≥ 1 of 1 / n_i (0.36 over four tokens, 0.19 over twelve)
//   locality             mean over i of Σ_{|i−j| ≤ 3} a[i][j]
//   distance             mean over i ≥ 1 of Σ_j a[i][j]·|i−j|; distance_normalised divides it by the same
//                        mean under uniform attention over the allowed positions (1 = as far as uniform)
//   induction            mean over rows with a match of Σ_{j ∈ M_i} a[i][j], M_i = {1 ≤ j < i : token[j−1] = token[i]}:
//                        attending to the token after an earlier occurrence of the current one; its chance, the
//                        mean over the same rows of |M_i| / n_i (uniform attention's weight on M_i): a common
//                        word repeated in a short sentence ("the … the … the") gives few rows whose M_i are a
//                        third of the keys, where a head reaches 0.5 by attending to nouns
//   duplicate_token      the same with M_i = {j < i : token[j] = token[i]}
//   offset, offset_weight  the stripe a head draws: for d = 1 … ⌊T/2⌋ (stripes over at least half the rows),
//                        s_d = mean over i ≥ d of a[i][i−d]; offset = the d of the largest s_d (the first
//                        such), offset_weight = that s_d. A recall head that reads the token k back has
//                        offset k; a previous-token head offset 1. Over several texts (mean_analysis): the
//                        largest of the mean s_d, so still a whole d.
//   similarity(h, g)     1 − mean over i ≥ 1 of the Jensen–Shannon divergence (log base 2, in [0, 1]) of the
//                        two heads' rows, each smoothed a ← 0.001/n_i + 0.999·a over the allowed positions
// And from the gradient pass (importance.h), null in an analysis of a run alone:
//   importance           mean over sequences of |∂L/∂ξ_h| at ξ = 1: the loss's first-order change when the head goes
//   importance_normalised  importance / the ℓ2 norm of its layer's importances (Michel et al. 2019)
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/config.h"
#include "analysis/head_types.h"
#include "model/trace.h"
#include "text/tokenizer.h"

namespace mha {

struct HeadMetrics {
  std::optional<double> entropy, self, previous_token, first_token, locality, distance, distance_normalised, induction,
      duplicate_token, offset, offset_weight, importance, importance_normalised;
  // The head types of real text (head_types.h), null for a model without a vocabulary that says.
  std::optional<double> rare_word, noun_article, noun_adjective, verb_subject, parallel_line;
  // Each typed measure's chance: its value under uniform attention over the same rows (head_types.h).
  std::optional<double> previous_token_chance, induction_chance, first_token_chance, self_chance, offset_weight_chance,
      rare_word_chance, noun_article_chance, noun_adjective_chance, verb_subject_chance, parallel_line_chance;
  std::vector<double> offset_profile;  // mean a[i][i − k], k = 0 … kOffsetProfile (head_types.h)
  // Every candidate stripe s_d, d = 1 … ⌊T/2⌋, and its chance (element d − 1 of each): not reported, kept
  // so that a mean over texts takes the offset of the mean stripes (mean_analysis), a whole number.
  std::vector<double> stripes, stripe_chances;
  std::string label;  // a label id of head_label_rules(), or "mixed"
  std::string strongest;  // strongest_type(): the type it is most like, or "" where none is measured
  // What its name rests on, as every report writes it beside the name: its label's rule's metric (a
  // mixed head's: that of the type it is nearest), and that metric's chance where it has one. None for
  // a mixed head near no type.
  struct TypeMeasure {
    std::string type, metric;
    std::optional<double> value, chance;
  };
  std::optional<TypeMeasure> measure;
  std::vector<TypeCell> cells;  // label_cells() of its label on the text analysed; none for a mean over texts
};

struct LayerAnalysis {
  std::vector<HeadMetrics> heads;
  std::vector<std::vector<std::optional<double>>> similarity;  // heads × heads
};

// Every metric, in the order reports list them (the heads panel's columns): its id (the JSON key,
// the page's strings metric.{id}), where HeadMetrics keeps it, whether it is a fraction of the
// attention, from 0 to 1 (drawn as a bar; distances are in tokens), and whether the gradient pass
// computes it. Adding a metric: a row here, its computation in head_metrics.cpp (or importance.cpp),
// its strings, a test.
struct HeadMetricSpec {
  const char* id;
  std::optional<double> HeadMetrics::*value;
  bool fraction;
  const char* abbreviation;  // at most 7 characters: the header of `mha heads`'s table
  bool gradient = false;     // from importance.h's gradient pass, not from the attention weights
  // Where its chance is kept (head_types.h), for the measures that have one: reports print it beside
  // the value ("{id}_chance" in JSON), and labels may ask for a multiple of it.
  std::optional<double> HeadMetrics::*chance = nullptr;
  bool vocabulary = false;  // reads what the model's vocabulary says of its tokens: null for a toy model's ids
};
const std::vector<HeadMetricSpec>& head_metric_table();

// The labels, checked in this order; the first rule whose metric reaches its threshold names the head
// ("broad" is reached by a high entropy). None: "mixed".
struct LabelRule {
  const char* id;      // stable, for the page's strings: previous_token, induction, parallel_line, …, broad
  const char* metric;  // the HeadMetrics field it reads
  double threshold;
  double times_chance = 0;  // and at least this multiple of the metric's chance (0: no such condition)
};
const std::vector<LabelRule>& head_label_rules();
const char* head_label(const HeadMetrics& metrics);
// The type a head is most like, named or not: of the label rules whose metric has a chance, the one
// whose measure is the greatest multiple of its chance (the first in the rules' order on a tie); null
// where none is measured above 0. What the heads table says of a "mixed" head (a rare-word head at
// 4.9× its chance, short of the 5× that names it).
const char* strongest_type(const HeadMetrics& metrics);

// weights: (heads, T, T) row-major, as the trace's (1, heads, T, T); ids: the T token ids; facts: what
// the model's vocabulary says of them (head_types.h), or null.
LayerAnalysis analyse_layer(const float* weights, int heads, int T, const std::vector<int32_t>& ids, bool causal,
                            const TokenFacts* facts = nullptr);

// Every layer of a run (a single attention layer is one layer), from its weights and ids; the typed
// measures where `tokenizer` is a vocabulary (vocab_tokenizer.h).
std::vector<LayerAnalysis> analyse_trace(const Trace& trace, const Config& config, const Tokenizer* tokenizer = nullptr);

// The mean of several analyses of one model (windows of a held-out text): each value over the analyses
// that have it, the labels given again from the means.
std::vector<LayerAnalysis> mean_analysis(const std::vector<std::vector<LayerAnalysis>>& analyses);

// {"labels": [{"label": "previous_token", "metric": "previous_token", "at_least": 0.5}, …],
//  "layers": [{"heads": [{"entropy": …, …, "label": "…", "strongest": "…" | null,
//              "measure": {"type", "metric", "value", "chance"} | null, "cells": [[row, key], …]}],
//              "similarity": [[…]]}]},
// null for nullopt.
// "labels" is head_label_rules() in order (a head none reaches is "mixed"): the page shows it from here.
nlohmann::json analysis_to_json(const std::vector<LayerAnalysis>& layers);

}  // namespace mha
