#include "model/sampling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "base/error.h"
#include "kernels/loss.h"

namespace mha {

namespace {

constexpr int kShortList = 64;  // ranked ids kept by insertion; longer rankings are sorted

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

void check_range(const char* field, double value, double min, double max) {
  if (!(value >= min && value <= max))  // NaN fails too
    throw Error(ErrorCode::out_of_range, field, {{"min", number(min)}, {"max", number(max)}, {"value", number(value)}});
}

void check_sampling(const SamplingOptions& o, int vocab) {
  check_range("temperature", o.temperature, 0, kMaxTemperature);
  check_range("top_k", o.top_k, 0, vocab);
  check_range("top_p", o.top_p, 0, 1);
}

Draw draw_next(const float* logits, const float* probs, int V, const SamplingOptions& o, Rng& rng, int top_count) {
  // The ranking every cut and list follows: by logit, ties to the lower id (softmax keeps the order).
  const auto better = [logits](int a, int b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
  const bool greedy = o.temperature == 0.0f;
  const bool cut = !greedy && (o.top_k > 0 || o.top_p < 1.0f);
  const int listed = std::min(top_count, V);

  // q: softmax(logits / temperature); the model's own probs at temperature 1 (and for greedy steps).
  thread_local std::vector<float> scaled, q_storage;
  const float* q = probs;
  if (!greedy && o.temperature != 1.0f) {
    scaled.resize(static_cast<size_t>(V));
    q_storage.resize(static_cast<size_t>(V));
    for (int i = 0; i < V; ++i) scaled[i] = logits[i] / o.temperature;
    softmax_forward_rows(q_storage.data(), scaled.data(), 1, V);
    q = q_storage.data();
  }

  // The ids in rank order: all of them when a cut needs the ranking, else only the listed ones. A
  // short list is kept sorted in one pass over the vocabulary (most ids are one comparison with its
  // last), where sorting the whole vocabulary's ids showed in a decoding step's profile.
  thread_local std::vector<int> order;
  const int ranked = cut ? V : std::max(listed, 1);  // greedy reads the first
  if (ranked <= kShortList) {
    order.resize(static_cast<size_t>(ranked));
    int size = 0;
    for (int id = 0; id < V; ++id) {
      // a full list: the plain comparison settles most ids without a call of better (-Os in WebAssembly)
      if (size == ranked && (logits[id] < logits[order[size - 1]] || !better(id, order[size - 1]))) continue;
      int at = size < ranked ? size++ : size - 1;  // a full list drops its last
      for (; at > 0 && better(id, order[at - 1]); --at) order[at] = order[at - 1];
      order[at] = id;
    }
  } else {
    order.resize(static_cast<size_t>(V));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + ranked, order.end(), better);
  }

  Draw d;
  d.sampled = !greedy;
  d.kept = V;
  if (cut) {
    if (o.top_k > 0) d.kept = std::min(o.top_k, V);
    if (o.top_p < 1.0f) {  // keep an id while the ids likelier than it (renormalised after top-k) sum below top_p
      double total = 0;
      for (int r = 0; r < d.kept; ++r) total += q[order[r]];
      double before = 0;
      int r = 0;
      for (; r < d.kept && (r == 0 || before / total < o.top_p); ++r) before += q[order[r]];
      d.kept = r;
    }
  }
  // The distribution drawn from: q over the kept ids, renormalised (rank order when cut, id order when not).
  double total = 0;
  if (!greedy)  // a greedy step reports the model's own p
    for (int r = 0; r < d.kept; ++r) total += q[cut ? order[r] : r];
  const auto p_of = [&](int id) { return q[id] / total; };

  if (greedy) {
    d.id = order[0];
    d.p = probs[d.id];
  } else {
    const double u = rng.uniform01();
    double sum = 0;
    int r = 0;
    for (; r < d.kept - 1; ++r) {  // the last kept id takes whatever rounding leaves
      sum += p_of(cut ? order[r] : r);
      if (u < sum) break;
    }
    d.id = cut ? order[r] : r;
    d.p = static_cast<float>(p_of(d.id));
  }
  for (int r = 0; r < listed; ++r) {
    const int id = order[r];
    const bool in = greedy || r < d.kept;
    d.top.push_back({id, greedy ? probs[id] : in ? static_cast<float>(p_of(id)) : 0.0f});
    d.before.push_back(q[id]);
  }
  return d;
}

}  // namespace mha
