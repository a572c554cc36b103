// A training run, declared once: the task (the induction task or the recall task) with its own
// parameters, the model, the optimiser and the steps. `mha train`, `mha sweep`, the module's Trainer,
// the benchmarks and the catalog (and through it the page) start from the recipes here; the shipped
// models are trained from them by `npm run train`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/random.h"
#include "model/model.h"
#include "train/adam.h"
#include "train/corpus_task.h"
#include "train/induction_task.h"
#include "train/recall_task.h"
#include "train/train.h"

namespace mha {

enum class TaskKind { induction, recall, corpus };
const char* task_name(TaskKind task);         // "induction" | "recall" | "corpus"
TaskKind parse_task(const std::string& name);  // a task's name, else mha::Error
std::vector<std::string> task_names();         // every task's name (the CLI's choices)

struct Recipe {
  TaskKind task = TaskKind::induction;
  // attn-only (or gpt2, the induction task only). What follows from the task is set by checked_recipe:
  // causal, max_positions (the longest sequence), readouts (1, or the recall task's K).
  Config config;
  InductionTask induction;  // the induction task's lengths
  RecallTask recall;        // the recall task's K and length
  CorpusTask corpus;        // the corpus task's text and window
  int batch = 16;
  AdamSettings adam;
  // The learning rate's schedule: linear from 0 to adam.lr over the first `warmup` steps, then linear
  // down to adam.lr · final_lr at the last step (plain float arithmetic, no libm: the same bits in
  // WebAssembly). warmup 0 and final_lr 1: a constant rate, as the toy tasks train.
  int warmup = 0;
  float final_lr = 1.0f;
  float init_std = 0.1f;
  int steps = 3000;  // how long `mha train` and the page train it
};

// The induction model's recipe (models/induction.safetensors): an attn-only model of 2 layers, 4
// heads, d_model 64, vocabulary 64, seed 2, and the fields' defaults above.
Recipe induction_recipe();
// The same task at half the width, for a phone's "Train it yourself": d_model 32, 2 heads,
// vocabulary 32, L up to 16, batch 8, lr 5e-3.
Recipe induction_recipe_small();
// The recall model's recipe (models/recall.safetensors): one attention-only layer of 4 heads,
// d_model 64, vocabulary 64, learned positions, K = 4 readouts over sequences of 16 ids; batch 32,
// 2,000 steps of Adam at lr 3e-3.
Recipe recall_recipe();
// The real-text models' recipe (models/{corpus}.safetensors): GPT-2 blocks (LayerNorm, GELU MLP, tied
// unembedding), 4 blocks of 4 heads, d_model 128, windows of 128 tokens, AdamW at 2e-3 with 100 steps
// of warm-up and linear decay to a tenth; the seed, the batch, the steps and the weight decay are the
// corpus's (kCorpora).
// `data`, when given, sets the vocabulary; without it the recipe only describes.
Recipe corpus_recipe(const std::string& corpus, std::shared_ptr<const Corpus> data = nullptr);
// The page's recipe of the same corpus, small enough to train in a browser within a minute and a half
// (the page's Train it yourself): 2 blocks, d_model 64, windows of 64, the 1,000 most frequent tokens,
// batch 8, AdamW without decay at the corpus's rate, schedule and seed (kCorpora page_lr, page_final_lr, page_seed)
// after 30 warm-up steps, 1,800 steps. On the Tang poems a previous-character head forms at 7.6× its
// chance on held-out text; on the Brown corpus rare-word heads, then a noun → article head
// (models/README.md).
Recipe corpus_recipe_page(const std::string& corpus);

// The recipes the page's "Train it yourself" offers, by the names the catalog gives them
// (catalog.recipes; el.train({task})): the catalog, the page's menu (labelled from the numbers) and the
// API read this table, and scripts/package.js writes the package's types of them from the catalog. A
// new recipe is a line here, its function, and its test.
struct PageRecipe {
  const char* name;
  Recipe (*make)();
};
inline const PageRecipe kPageRecipes[] = {
    {"induction", induction_recipe},
    {"inductionSmall", induction_recipe_small},
    {"recall", recall_recipe},
    {"tang", [] { return corpus_recipe_page("tang"); }},
    {"brown", [] { return corpus_recipe_page("brown"); }},
};

Recipe recipe_of(TaskKind task);  // the task's shipped recipe (the corpus task's: Tang's)
// The learning rate at step s (from 1) of a recipe's schedule.
float scheduled_lr(const Recipe& recipe, int step);
// The head counts `mha sweep` trains the recall recipe at (d_model 64: d_head 64 … 1).
std::vector<int> sweep_heads();

// The recipe with what follows from its task filled in, or mha::Error for one that cannot train.
Recipe checked_recipe(Recipe recipe);

// The lowest mean loss the task allows, which the page's loss curve marks: 0 for the recall task
// (every id it asks for is in view); for the induction task the loss of a model that predicts the
// repeat perfectly and every random token uniformly, mean over L of (L + 1)·ln(vocab − 1) / 2L
// (the first copy and the repeat's first token are random) — about half the loss it starts at.
double loss_floor(const Recipe& recipe);

// One batch of the recipe's task.
Batch task_batch(Rng& rng, const Recipe& recipe);

// What a trained model's file says about how it was made (its __metadata__): the recipe in words,
// the seed, the steps, and that it reads text by first appearance after the start token 0.
std::map<std::string, std::string> training_metadata(const Recipe& recipe, int steps);

// The seed of the fresh sequences a trained model is scored on (never a training batch's).
uint64_t evaluation_seed(const Recipe& recipe);

// A whole training run: weights drawn from config.seed, batches from their own stream of the seed.
class Training {
 public:
  explicit Training(Recipe recipe);
  float step();  // one batch; the loss before the update
  // The induction task: induction_score() of the current weights on `sequences` fresh sequences per
  // L, always the same ones for a seed: the check for the phase change.
  double induction_score(int sequences = 1) const;
  // The recall task: the current weights scored on fresh sequences, the same ones for a seed (those
  // `mha sweep` and the page score on).
  RecallScores recall_scores(int sequences = kRecallEvalSequences) const;
  const Trainer& trainer() const { return trainer_; }
  const Recipe& recipe() const { return recipe_; }
  // The weights now, reading text with the corpus's vocabulary where the task has one (what says a
  // token is rare, a noun, an article: the typed head measures read it).
  Model model() const;
  // The whole state of a run, for train/checkpoint.h: the trainer and the batches' generator.
  Trainer& trainer() { return trainer_; }
  Rng& data() { return data_; }
  const Rng& data() const { return data_; }

 private:
  Recipe recipe_;
  Trainer trainer_;
  Rng data_;
};

}  // namespace mha
