#include "analysis/head_types.h"

#include <algorithm>
#include <cstddef>

#include "analysis/head_metrics.h"

namespace mha {

namespace {

// A measure and its chance, over the same rows.
struct Pair {
  double sum = 0, chance = 0;
  int count = 0;
  void add(double v, double c) { sum += v, chance += c, ++count; }
  void put(std::optional<double>& value, std::optional<double>& chance_value) const {
    if (!count) return;
    value = sum / count, chance_value = chance / count;
  }
};

// The nearest j in [i − reach, i − 1] whose token's tag is one of `wanted`, else −1.
int nearest_before(const std::vector<int32_t>& ids, const TokenFacts& f, int i, int reach, WordTag a, WordTag b) {
  for (int j = i - 1; j >= std::max(0, i - reach); --j) {
    const WordTag t = f.tags[static_cast<size_t>(ids[static_cast<size_t>(j)])];
    if (t == a || t == b) return j;
  }
  return -1;
}

enum class Syntax { article, adjective, subject };

// The word each qualifying row's syntactic measure reads (rows in order): a noun's nearest det within
// six words, its nearest adjective within three, a verb's nearest noun or subject pronoun within six.
std::vector<TypeCell> syntactic_cells(const std::vector<int32_t>& ids, const TokenFacts& f, int T, Syntax kind) {
  std::vector<TypeCell> out;
  for (int i = 1; i < T && !f.tags.empty(); ++i) {
    const WordTag t = f.tags[static_cast<size_t>(ids[static_cast<size_t>(i)])];
    int j = -1;
    if (kind == Syntax::article && t == WordTag::noun) j = nearest_before(ids, f, i, 6, WordTag::det, WordTag::det);
    if (kind == Syntax::adjective && t == WordTag::noun) j = nearest_before(ids, f, i, 3, WordTag::adj, WordTag::adj);
    if (kind == Syntax::subject && t == WordTag::verb) j = nearest_before(ids, f, i, 6, WordTag::noun, WordTag::pron_subj);
    if (j >= 0) out.push_back({i, j});
  }
  return out;
}

// The parallel-line pairs (head_types.h), in order: the row that predicts a character of a half-line as
// long as the one before it, and the same place in that one.
std::vector<TypeCell> parallel_cells(const std::vector<int32_t>& ids, const TokenFacts& f, int T) {
  const auto ends = [&](int i) { return f.half_line_end[static_cast<size_t>(ids[static_cast<size_t>(i)])] != 0; };
  // Half-lines: runs of tokens that end no half-line, with the marks between them.
  struct Run {
    int start, length;
  };
  std::vector<Run> runs;
  for (int i = 0; i < T && !f.half_line_end.empty();) {
    if (ends(i)) {
      ++i;
      continue;
    }
    int j = i;
    while (j < T && !ends(j)) ++j;
    runs.push_back({i, j - i});
    i = j;
  }
  std::vector<TypeCell> out;
  for (size_t r = 1; r < runs.size(); ++r) {
    const Run& before = runs[r - 1];
    const Run& now = runs[r];
    const int gap = now.start - (before.start + before.length);
    // A run cut by the window's start or end is as long as its neighbour only by chance (the lines of
    // a poem are 5 or 7 long), so no mark is asked for at either end: a couplet typed alone counts.
    if (now.length != before.length || now.length < 4 || now.length > 9 || gap > 2) continue;
    for (int k = 0; k < now.length; ++k) out.push_back({now.start + k - 1, before.start + k});  // row predicting now.start + k
  }
  return out;
}

// The keys j < n, j ≤ i that hold the rarest ranked token in row i's view (empty: none is ranked).
std::vector<int> rarest_in_view(const std::vector<int32_t>& ids, const TokenFacts& f, int i, int n) {
  const auto rank = [&](int j) { return f.rarity[static_cast<size_t>(ids[static_cast<size_t>(j)])]; };
  int32_t rarest = -1;
  for (int j = 0; j < std::min(n, i + 1); ++j) rarest = std::max(rarest, rank(j));
  std::vector<int> out;
  for (int j = 0; j < std::min(n, i + 1) && rarest >= 0; ++j)
    if (rank(j) == rarest) out.push_back(j);
  return out;
}

}  // namespace

TokenFacts token_facts(const VocabTokenizer& tokenizer) {
  TokenFacts f;
  const int V = tokenizer.vocab_size();
  for (int32_t id = 0; id < V; ++id) {
    // the vocabulary is in order of frequency after its specials: the id is the rank
    f.rarity.push_back(tokenizer.is_special(id) ? -1 : id);
    f.half_line_end.push_back(tokenizer.ends_half_line(id) ? 1 : 0);
    if (!tokenizer.vocabulary().tags.empty()) f.tags.push_back(tokenizer.tag(id));
  }
  return f;
}

void measure_head_types(const float* a, int T, const std::vector<int32_t>& ids, bool causal, const TokenFacts* facts,
                        HeadMetrics& m) {
  const auto allowed = [&](int i) { return causal ? i + 1 : T; };
  const auto at = [&](int i, int j) { return static_cast<double>(a[static_cast<size_t>(i) * T + j]); };
  Pair previous, first, self;
  for (int i = 1; i < T; ++i) {
    previous.add(at(i, i - 1), 1.0 / allowed(i));
    first.add(at(i, 0), 1.0 / allowed(i));
    self.add(at(i, i), 1.0 / allowed(i));
  }
  std::optional<double> unused;
  previous.put(unused, m.previous_token_chance);
  first.put(unused, m.first_token_chance);
  self.put(unused, m.self_chance);
  if (m.offset) m.offset_weight_chance = m.stripe_chances[static_cast<size_t>(*m.offset) - 1];
  m.offset_profile.clear();
  for (int k = 0; k <= kOffsetProfile && k < T; ++k) {
    double sum = 0;
    for (int i = k; i < T; ++i) sum += at(i, i - k);
    m.offset_profile.push_back(sum / (T - k));
  }
  if (!facts) return;
  const auto id = [&](int i) { return static_cast<size_t>(ids[static_cast<size_t>(i)]); };

  Pair rare;
  for (int i = 1; i < T && !facts->rarity.empty(); ++i) {
    const int n = allowed(i);
    const std::vector<int> rarest_keys = rarest_in_view(ids, *facts, i, n);
    if (rarest_keys.empty()) continue;
    const int32_t rarest = facts->rarity[id(rarest_keys[0])];
    const int holders = static_cast<int>(rarest_keys.size());
    // pass 1: the strongest weight; pass 2: the keys that have it, and how many of them hold the rarest.
    // A tie shares the row, so uniform attention scores holders / n: its chance.
    double strongest = at(i, 0);
    for (int j = 1; j < n; ++j) strongest = std::max(strongest, at(i, j));
    int tied = 0, on_rarest = 0;
    for (int j = 0; j < n; ++j) {
      if (at(i, j) != strongest) continue;
      ++tied;
      if (j <= i && facts->rarity[id(j)] == rarest) ++on_rarest;
    }
    rare.add(static_cast<double>(on_rarest) / tied, static_cast<double>(holders) / n);
  }
  rare.put(m.rare_word, m.rare_word_chance);

  // A measure read at one cell a row, beside 1 / n_i.
  const auto read = [&](const std::vector<TypeCell>& cells, std::optional<double>& value, std::optional<double>& chance) {
    Pair p;
    for (const TypeCell& c : cells) p.add(at(c.row, c.key), 1.0 / allowed(c.row));
    p.put(value, chance);
  };
  if (!facts->tags.empty()) {
    read(syntactic_cells(ids, *facts, T, Syntax::article), m.noun_article, m.noun_article_chance);
    read(syntactic_cells(ids, *facts, T, Syntax::adjective), m.noun_adjective, m.noun_adjective_chance);
    read(syntactic_cells(ids, *facts, T, Syntax::subject), m.verb_subject, m.verb_subject_chance);
  }

  read(parallel_cells(ids, *facts, T), m.parallel_line, m.parallel_line_chance);
}

std::vector<TypeCell> induction_cells(const std::vector<int32_t>& ids, int T) {
  std::vector<TypeCell> out;
  for (int i = 0; i < T; ++i)
    for (int j = 1; j < i; ++j)
      if (ids[static_cast<size_t>(j - 1)] == ids[static_cast<size_t>(i)]) out.push_back({i, j});
  return out;
}

std::vector<TypeCell> label_cells(const std::string& label, std::optional<double> offset, int T, const std::vector<int32_t>& ids,
                                  const TokenFacts* facts) {
  std::vector<TypeCell> out;
  const auto stripe = [&](int d) {
    for (int i = std::max(d, 0); i < T; ++i) out.push_back({i, i - d});
  };
  if (label == "previous_token") stripe(1);
  if (label == "self")
    for (int i = 1; i < T; ++i) out.push_back({i, i});
  if (label == "positional" && offset) stripe(static_cast<int>(*offset));
  if (label == "first_token")
    for (int i = 1; i < T; ++i) out.push_back({i, 0});
  if (label == "induction") out = induction_cells(ids, T);
  if (!facts) return out;
  if (label == "rare_word" && !facts->rarity.empty())
    for (int i = 1; i < T; ++i)
      for (int j : rarest_in_view(ids, *facts, i, T)) out.push_back({i, j});
  if (label == "noun_article") out = syntactic_cells(ids, *facts, T, Syntax::article);
  if (label == "noun_adjective") out = syntactic_cells(ids, *facts, T, Syntax::adjective);
  if (label == "verb_subject") out = syntactic_cells(ids, *facts, T, Syntax::subject);
  if (label == "parallel_line" && !facts->half_line_end.empty()) out = parallel_cells(ids, *facts, T);
  return out;
}

}  // namespace mha
