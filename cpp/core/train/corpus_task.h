// The task of the models trained on real text: the next token, on windows of T + 1 tokens drawn at
// random from a prepared corpus (`npm run corpus`: the Tang poems by character, the Brown corpus by
// word), read with the corpus's own vocabulary (text/vocab_tokenizer.h). The held-out split is never
// trained on; the figures and tests read it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/head_metrics.h"
#include "base/random.h"
#include "model/model.h"
#include "text/vocab_tokenizer.h"
#include "train/task_samples.h"
#include "train/train.h"

namespace mha {

// A prepared corpus: its vocabulary and its two splits as ids.
struct Corpus {
  std::string name;  // "tang" | "brown"
  std::shared_ptr<const VocabTokenizer> tokenizer;
  std::vector<int32_t> train, heldout;
};

// The corpora `npm run corpus` prepares (scripts/corpus/prepare.js), in the order the menus list
// them, and what each one's recipe (recipe.h corpus_recipe) needs to know of it.
struct CorpusSpec {
  const char* name;  // as the CLI, the catalog, the page and a model file's metadata say it
  const char* what;  // what its text is and what a token is, for the CLI's help
  int vocab_size;    // its prepared vocabulary: prepare.js's `size` most frequent tokens and its specials
  int batch, steps;  // the shipped model's training (recipe.cpp corpus_recipe; models/README.md: what was tried)
  uint64_t seed;     // of its initial weights and its batches
  float weight_decay;  // the shipped model's AdamW decay (the page's small recipe has none)
  // The page's small recipe of it (recipe.cpp corpus_recipe_page): its learning rate after the warm-up,
  // and the last step's share of it (1: constant). At a constant 3e-3 the English recipe named no head
  // by 1,800 steps; at 1e-2 decaying to a tenth, rare-word heads by step 300 and a noun → article head
  // from step ~900 (models/README.md, the page's recipes). Its seed is its own: the shipped model's
  // was chosen among seeds of the big recipe, and the page's figures were measured at 5.
  float page_lr, page_final_lr;
  uint64_t page_seed;
};
inline constexpr CorpusSpec kCorpora[] = {
    // Seed 12: of seeds 5 and 7–13, the one whose previous-character head reaches 0.6 on held-out text
    // and whose layer 0 still names a parallel-line head on the page's poem (models/README.md).
    {"tang", "the Tang poems, by character", 3003, 32, 4000, 12, 0.0f, 3e-3f, 1.0f, 5},
    // Weight decay 0.1: without it no seed (5–9) nor learning rate (1e-3 to 6e-3) took the rare-word head
    // past 5.1× its chance on held-out text; with it a head is named rare word there from step 400 on
    // (models/README.md, the English rare-word head). Batch 32 × 3,000 steps (the reference's) gave the
    // same held-out loss as 16 × 4,000 and a weaker rare-word head.
    {"brown", "the Brown corpus, by word", 4002, 16, 4000, 5, 0.1f, 1e-2f, 0.1f, 5},
};
const CorpusSpec& corpus_spec(const std::string& name);  // mha::Error naming the corpora for any other name
std::string corpus_choices();  // "tang (the Tang poems, by character) or brown (…)": the CLI's help
const std::vector<std::string>& corpus_names();
// {dir}/{name}.vocab.json, {name}.train.txt and {name}.heldout.txt, each tokenized whole.
// mha::Error naming the file that is missing or malformed (and `npm run corpus`, which makes them).
// vocab_size > 0: its most frequent tokens only (most_frequent), the others <unk>.
std::shared_ptr<const Corpus> load_corpus(const std::string& name, const std::string& dir, int vocab_size = 0);
// The same from the three texts themselves (the module's Trainer: the page hands it a slice of the
// training split); `where` names them in an error, as {where}.vocab.json.
std::shared_ptr<const Corpus> corpus_from_texts(const std::string& name, const std::string& vocabulary_json, const std::string& train,
                                                const std::string& heldout, const std::string& where, int vocab_size = 0);

struct CorpusTask {
  std::string corpus = "tang";
  int length = 64;  // T: the tokens a window predicts from (the model's positions)
  std::shared_ptr<const Corpus> data;  // what batches are drawn from; loaded by the caller
};

// B windows of T + 1 tokens of the train split, each start uniform: ids the first T, targets the last T.
Batch corpus_batch(Rng& rng, const CorpusTask& task, int B);

// How a model does on a split: consecutive windows of T + 1 tokens (at most `windows` of them; 0: all),
// the mean cross-entropy over the targets that are not <unk> (a model that predicts <unk> well is not
// reading language), and how often its first choice is that target.
struct HeldoutScores {
  double loss = 0, accuracy = 0;
  int64_t targets = 0;  // counted
  int windows = 0;
};
HeldoutScores evaluate_heldout(const Model& model, const std::vector<int32_t>& ids, int T, int windows = 0);

// What each head does on a split: analyse_trace (head_metrics.h) of the first T tokens of each window
// (T = the model's positions), with the model's vocabulary, averaged over the windows (mean_analysis).
std::vector<LayerAnalysis> analyse_heldout(const Model& model, const std::vector<int32_t>& ids, int windows = 0);

// The windows evaluate_heldout reads, as id lists of T + 1 (the analyses of a split read the first T of each).
std::vector<std::vector<int32_t>> heldout_windows(const std::vector<int32_t>& ids, int T, int windows);

// A model of real text has no task to draw fresh sequences from: its importance and its pruning curve
// (importance.h, pruning.h) read the first n of those windows, each position's next token its target
// and counted by the accuracy, but for a next token that is <unk> (as evaluate_heldout). Throws
// mha::Error when the text has no window of T + 1 tokens, or none with a next token to score.
std::vector<TaskSample> heldout_samples(const std::vector<int32_t>& ids, int T, int n);

// The baseline a language model must beat: an interpolated bigram over the same vocabulary, counted on
// `train`: p(b | a) = λ·c(a, b)/c(a) + (1 − λ)·p(b), p(b) add-one smoothed (the unigram alone where a
// was never seen). Its mean −ln p over the targets of `heldout` that are not <unk>, at the λ of
// {0.5, 0.6, 0.7, 0.8, 0.9, 0.95} that does best there: the kindest bigram there is.
struct BigramScore {
  double loss = 0, lambda = 0;
};
BigramScore bigram_heldout_loss(const std::vector<int32_t>& train, const std::vector<int32_t>& heldout, int vocab);

}  // namespace mha
