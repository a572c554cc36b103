// The head types of real text (Voita et al. 2019; seed article 002), measured from a head's weights
// a[i][j] and what the model's vocabulary says of each token (vocab_tokenizer.h). Each is a mean over
// the rows that qualify, with its chance beside it: the same measure for a head that spreads its
// weight evenly over the n_i positions row i may attend to. Null where no row qualifies (or the model
// has no vocabulary that says: a toy model's ids are not words).
//   rare_word       rows i ≥ 1 with a ranked token in view: how often the head's strongest key holds the
//                   rarest token in view (the highest frequency rank among j ≤ i, in a bidirectional row too;
//                   <unk> and the specials are not ranked); keys tied for strongest share the row;
//                   chance |rarest| / n_i
//   noun_article    rows whose token is a noun: a[i][j], j the nearest det (article or determiner) at
//                   i − 6 … i − 1; chance 1 / n_i
//   noun_adjective  the same with the nearest adjective at i − 3 … i − 1
//   verb_subject    rows whose token is a verb: a[i][j], j the nearest noun or subject pronoun at i − 6 … i − 1
//   parallel_line   the poems' half-lines as long as the one before them (4 to 9 characters, at most two
//                   marks between them: ，。\n; a window's cut runs are almost never as long: no mark is
//                   needed at either end, so a couplet typed alone counts): for each character c of such a half-line, the weight that
//                   the row predicting c (the position before it) puts on the same place one half-line
//                   back (秦川雄帝宅，函谷壮皇居: predicting 函, the row of ， on 秦). A model of the next token
//                   reads the parallel of what it is about to write: the shipped Tang model's head 2.1
//                   puts 0.35 there on held-out text (the models shipped before it: 0.40 and 0.42
//                   there, and chance on the weight c itself puts on its parallel).
//   offset_profile  mean over i ≥ k of a[i][i − k], k = 0 … 16 that are < T: where a head looks, as a curve
// The chance of previous_token, first_token and offset_weight (head_metrics.h) is mean 1 / n_i over their rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "text/vocab_tokenizer.h"

namespace mha {

struct HeadMetrics;

// What the head types read of each id, from a model's vocabulary. An empty list says nothing: its measures are null.
struct TokenFacts {
  std::vector<int32_t> rarity;         // per id: its frequency rank (higher is rarer); −1: not ranked
  std::vector<WordTag> tags;           // per id (words); empty for characters
  std::vector<uint8_t> half_line_end;  // per id: 1 where a half-line ends (characters)
};
TokenFacts token_facts(const VocabTokenizer& tokenizer);

constexpr int kOffsetProfile = 16;  // the offset profile's last k

// Fills the typed measures and the chances of `m` for one head (a: T × T row-major), whose stripes
// and offset are measured already.
void measure_head_types(const float* a, int T, const std::vector<int32_t>& ids, bool causal, const TokenFacts* facts,
                        HeadMetrics& m);

// A cell of a head's map: query row, key column.
struct TypeCell {
  int row, key;
};

// The cells the measure behind a label reads on these ids, rows in order — what the page outlines in a
// head's map when a learner points at its name: previous_token (i, i − 1), positional (i, i − offset),
// self (i, i), first_token (i, 0), induction the keys of M_i (head_metrics.h), rare_word the rarest
// tokens in each row's view, the syntactic types the word each row reads, parallel_line the same place
// one half-line back. None for broad and mixed (and for the typed labels without `facts`). A test
// holds each list to its metric: the mean over rows of the weight on a row's cells is the metric.
std::vector<TypeCell> label_cells(const std::string& label, std::optional<double> offset, int T, const std::vector<int32_t>& ids,
                                  const TokenFacts* facts);

// M_i, every row's: the keys j < i whose previous token is token i (head_metrics.h's induction), rows in
// order. The one definition the induction metric and its cells read.
std::vector<TypeCell> induction_cells(const std::vector<int32_t>& ids, int T);

}  // namespace mha
