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
  Pair previous, first;
  for (int i = 1; i < T; ++i) {
    previous.add(at(i, i - 1), 1.0 / allowed(i));
    first.add(at(i, 0), 1.0 / allowed(i));
  }
  std::optional<double> unused;
  previous.put(unused, m.previous_token_chance);
  first.put(unused, m.first_token_chance);
  if (m.offset) {
    Pair stripe;
    const int d = static_cast<int>(*m.offset);
    for (int i = d; i < T; ++i) stripe.add(at(i, i - d), 1.0 / allowed(i));
    stripe.put(unused, m.offset_weight_chance);
  }
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
    int32_t rarest = -1;
    int holders = 0;
    for (int j = 0; j < std::min(n, i + 1); ++j) {
      const int32_t r = facts->rarity[id(j)];
      if (r > rarest) rarest = r, holders = 0;
      if (r == rarest && r >= 0) ++holders;
    }
    if (rarest < 0) continue;
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

  if (!facts->tags.empty()) {
    Pair article, adjective, subject;
    for (int i = 1; i < T; ++i) {
      const WordTag t = facts->tags[id(i)];
      const double chance = 1.0 / allowed(i);
      if (t == WordTag::noun) {
        const int det = nearest_before(ids, *facts, i, 6, WordTag::det, WordTag::det);
        if (det >= 0) article.add(at(i, det), chance);
        const int adj = nearest_before(ids, *facts, i, 3, WordTag::adj, WordTag::adj);
        if (adj >= 0) adjective.add(at(i, adj), chance);
      } else if (t == WordTag::verb) {
        const int subj = nearest_before(ids, *facts, i, 6, WordTag::noun, WordTag::pron_subj);
        if (subj >= 0) subject.add(at(i, subj), chance);
      }
    }
    article.put(m.noun_article, m.noun_article_chance);
    adjective.put(m.noun_adjective, m.noun_adjective_chance);
    subject.put(m.verb_subject, m.verb_subject_chance);
  }

  // Half-lines: runs of tokens that end no half-line, with the marks between them.
  struct Run {
    int start, length;
  };
  std::vector<Run> runs;
  for (int i = 0; i < T && !facts->half_line_end.empty();) {
    if (facts->half_line_end[id(i)]) {
      ++i;
      continue;
    }
    int j = i;
    while (j < T && !facts->half_line_end[id(j)]) ++j;
    runs.push_back({i, j - i});
    i = j;
  }
  Pair parallel;
  for (size_t r = 1; r < runs.size(); ++r) {
    const Run& before = runs[r - 1];
    const Run& now = runs[r];
    const int gap = now.start - (before.start + before.length);
    // A run cut by the window's start or end is as long as its neighbour only by chance (the lines of
    // a poem are 5 or 7 long), so no mark is asked for at either end: a couplet typed alone counts.
    if (now.length != before.length || now.length < 4 || now.length > 9 || gap > 2) continue;
    for (int k = 0; k < now.length; ++k) {
      const int i = now.start + k - 1;  // the row that predicts the character at now.start + k
      parallel.add(at(i, before.start + k), 1.0 / allowed(i));
    }
  }
  parallel.put(m.parallel_line, m.parallel_line_chance);
}

}  // namespace mha
