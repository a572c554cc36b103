#include "train/corpus_task.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>

#include "base/error.h"
#include "io/files.h"
#include "kernels/loss.h"

namespace mha {

namespace {

std::string read_text(const std::string& path) {
  std::vector<uint8_t> bytes;
  try {
    bytes = read_file(path);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (npm run corpus prepares the corpora)");
  }
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

const std::vector<std::string>& corpus_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const CorpusSpec& c : kCorpora) all.emplace_back(c.name);
    return all;
  }();
  return names;
}

namespace {
template <typename Say>
std::string listed(Say say) {
  std::vector<std::string> items;
  for (const CorpusSpec& c : kCorpora) items.push_back(say(c));
  return or_list(items);
}
}  // namespace

const CorpusSpec& corpus_spec(const std::string& name) {
  for (const CorpusSpec& c : kCorpora)
    if (name == c.name) return c;
  throw Error("unknown corpus '" + printable(name) + "'; expected " + listed([](const CorpusSpec& c) { return std::string(c.name); }));
}

std::string corpus_choices() {
  return listed([](const CorpusSpec& c) { return std::string(c.name) + " (" + c.what + ")"; });
}

std::shared_ptr<const Corpus> corpus_from_texts(const std::string& name, const std::string& vocabulary_json, const std::string& train,
                                                const std::string& heldout, const std::string& where, int vocab_size) {
  corpus_spec(name);  // an unknown name refused before any text is read
  auto corpus = std::make_shared<Corpus>();
  corpus->name = name;
  Vocabulary vocabulary = parse_vocabulary(vocabulary_json, where + ".vocab.json");
  if (vocabulary.corpus != name) throw Error(where + ".vocab.json is the vocabulary of '" + printable(vocabulary.corpus) + "'");
  if (vocab_size > 0) vocabulary = most_frequent(std::move(vocabulary), vocab_size);
  corpus->tokenizer = std::make_shared<VocabTokenizer>(std::move(vocabulary));
  corpus->train = corpus->tokenizer->tokenize_all(train).ids;
  corpus->heldout = corpus->tokenizer->tokenize_all(heldout).ids;
  return corpus;
}

std::shared_ptr<const Corpus> load_corpus(const std::string& name, const std::string& dir, int vocab_size) {
  corpus_spec(name);
  const std::string stem = dir + "/" + name;
  return corpus_from_texts(name, read_text(stem + ".vocab.json"), read_text(stem + ".train.txt"), read_text(stem + ".heldout.txt"), stem, vocab_size);
}

Batch corpus_batch(Rng& rng, const CorpusTask& task, int B) {
  const std::vector<int32_t>& ids = task.data->train;
  const int T = task.length;
  if (ids.size() < static_cast<size_t>(T) + 1) throw Error("the corpus is shorter than one window");
  const uint64_t starts = ids.size() - static_cast<size_t>(T);  // a window starts in [0, starts)
  Batch batch;
  batch.B = B, batch.T = T;
  for (int b = 0; b < B; ++b) {
    // two draws, so a corpus of more than 2^32 tokens is covered too; the same on every platform
    const uint64_t draw = (static_cast<uint64_t>(rng.next_u32()) << 32) | rng.next_u32();
    const size_t start = static_cast<size_t>(draw % starts);
    batch.ids.insert(batch.ids.end(), ids.begin() + start, ids.begin() + start + T);
    batch.targets.insert(batch.targets.end(), ids.begin() + start + 1, ids.begin() + start + T + 1);
  }
  return batch;
}

std::vector<std::vector<int32_t>> heldout_windows(const std::vector<int32_t>& ids, int T, int windows) {
  std::vector<std::vector<int32_t>> out;
  for (size_t start = 0; start + static_cast<size_t>(T) < ids.size(); start += static_cast<size_t>(T)) {
    if (windows > 0 && static_cast<int>(out.size()) == windows) break;
    out.emplace_back(ids.begin() + start, ids.begin() + start + T + 1);
  }
  return out;
}

namespace {
// A window of T + 1 ids as T positions, each one's next token its target, but where that is <unk>:
// not a target (-1) and not scored. Every held-out figure reads windows so (evaluate_heldout,
// heldout_samples): a model that predicts <unk> well is not reading language.
TaskSample window_sample(const std::vector<int32_t>& window) {
  TaskSample s;
  s.ids.assign(window.begin(), window.end() - 1);
  s.targets.assign(window.begin() + 1, window.end());
  for (size_t t = 0; t < s.targets.size(); ++t) {
    if (s.targets[t] == VocabTokenizer::kUnk) s.targets[t] = -1;
    else s.scored.push_back(static_cast<int>(t));
  }
  return s;
}

Error nothing_to_score(bool no_window, int T) {
  return Error(no_window ? "the held-out text has no window of " + std::to_string(T + 1) + " tokens"
                         : "every next token of the held-out text's windows is <unk>: there is nothing to score");
}
}  // namespace

std::vector<TaskSample> heldout_samples(const std::vector<int32_t>& ids, int T, int n) {
  const std::vector<std::vector<int32_t>> windows = heldout_windows(ids, T, n);
  std::vector<TaskSample> out;
  for (const std::vector<int32_t>& window : windows) {
    TaskSample s = window_sample(window);
    if (!s.scored.empty()) out.push_back(std::move(s));  // a window of nothing but <unk> has no loss
  }
  if (out.empty()) throw nothing_to_score(windows.empty(), T);
  return out;
}

std::vector<LayerAnalysis> analyse_heldout(const Model& model, const std::vector<int32_t>& ids, int windows) {
  const int T = model.config().max_positions;
  std::vector<std::vector<LayerAnalysis>> each;
  Trace trace;
  for (const std::vector<int32_t>& window : heldout_windows(ids, T, windows)) {
    model.run_blocks_into(trace, std::vector<int32_t>(window.begin(), window.end() - 1));
    each.push_back(analyse_trace(trace, model.config(), model.tokenizer()));
  }
  if (each.empty()) throw Error("the held-out text has no window of " + std::to_string(T + 1) + " tokens");
  return mean_analysis(each);
}

HeldoutScores evaluate_heldout(const Model& model, const std::vector<int32_t>& ids, int T, int windows) {
  const int V = model.config().vocab_size;
  HeldoutScores s;
  double loss = 0;
  int64_t right = 0;
  Trace trace;
  for (const std::vector<int32_t>& window : heldout_windows(ids, T, windows)) {
    const TaskSample w = window_sample(window);
    model.run_ids_into(trace, w.ids);
    const float* logits = trace.get("logits").ptr();
    for (int i : w.scored) {
      const int32_t want = w.targets[static_cast<size_t>(i)];
      const float* row = logits + static_cast<size_t>(i) * V;
      float row_loss = 0;
      crossentropy_forward(&row_loss, row, &want, 1, V);
      loss += row_loss;
      right += std::max_element(row, row + V) - row == want;
      ++s.targets;
    }
    ++s.windows;
  }
  if (s.targets == 0) throw nothing_to_score(s.windows == 0, T);
  s.loss = loss / static_cast<double>(s.targets);
  s.accuracy = static_cast<double>(right) / static_cast<double>(s.targets);
  return s;
}

BigramScore bigram_heldout_loss(const std::vector<int32_t>& train, const std::vector<int32_t>& heldout, int vocab) {
  std::vector<double> unigram(static_cast<size_t>(vocab), 1.0), first(static_cast<size_t>(vocab), 0.0);
  std::unordered_map<uint64_t, double> pairs;
  const auto key = [vocab](int32_t a, int32_t b) { return static_cast<uint64_t>(a) * static_cast<uint64_t>(vocab) + static_cast<uint64_t>(b); };
  for (size_t i = 0; i < train.size(); ++i) {
    unigram[static_cast<size_t>(train[i])] += 1;
    if (i + 1 < train.size()) first[static_cast<size_t>(train[i])] += 1, pairs[key(train[i], train[i + 1])] += 1;
  }
  const double total = static_cast<double>(train.size()) + vocab;
  BigramScore best{INFINITY, 0};
  for (double lambda : {0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
    double loss = 0;
    int64_t n = 0;
    for (size_t i = 1; i < heldout.size(); ++i) {
      const int32_t a = heldout[i - 1], b = heldout[i];
      if (b == VocabTokenizer::kUnk) continue;
      const double p_uni = unigram[static_cast<size_t>(b)] / total;
      double p = p_uni;
      if (first[static_cast<size_t>(a)] > 0) {
        const auto it = pairs.find(key(a, b));
        p = lambda * (it == pairs.end() ? 0.0 : it->second) / first[static_cast<size_t>(a)] + (1 - lambda) * p_uni;
      }
      loss -= std::log(p), ++n;
    }
    if (n && loss / n < best.loss) best = {loss / n, lambda};
  }
  return best;
}

}  // namespace mha
