#include "model/embedding.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"
#include "base/random.h"
#include "model/parameters.h"

namespace mha {

namespace {
constexpr uint64_t kStreamTokenTable = 100;  // fixed forever: see parameters.cpp's streams (1…, 1000…): 100 is neither's
}

Tensor token_embeddings(const std::vector<int32_t>& ids, const Config& c, const Tensor& token_table) {
  const int T = static_cast<int>(ids.size()), d = c.d_model;
  Tensor out({T, d});
  if (!token_table.data.empty()) {
    const int64_t vocab = token_table.shape[0];
    for (int t = 0; t < T; ++t) {
      if (ids[t] < 0 || ids[t] >= vocab)
        throw Error("token id " + std::to_string(ids[t]) + " is outside the loaded table of " + std::to_string(vocab) + " rows");
      std::copy_n(token_table.ptr() + static_cast<int64_t>(ids[t]) * d, d, out.ptr() + t * d);
    }
    return out;
  }
  const float bound = xavier_bound(d, c.vocab_size);
  const float scale = std::sqrt(static_cast<float>(d));
  const uint64_t table_seed = derive_seed(c.seed, kStreamTokenTable);
  for (int t = 0; t < T; ++t) {
    Rng rng(derive_seed(table_seed, static_cast<uint64_t>(ids[t])));
    float* row = out.ptr() + static_cast<int64_t>(t) * d;
    rng.fill_uniform(row, static_cast<size_t>(d), -bound, bound);
    for (int i = 0; i < d; ++i) row[i] *= scale;
  }
  return out;
}

Tensor sinusoidal_positions(int T, int d_model) {
  Tensor out({T, d_model});
  std::vector<double> wavelength(static_cast<size_t>(d_model));  // the same for every position
  for (int i = 0; i < d_model; ++i) wavelength[i] = std::pow(10000.0, static_cast<double>(i - i % 2) / d_model);
  for (int pos = 0; pos < T; ++pos) {
    for (int i = 0; i < d_model; ++i) {
      const double angle = pos / wavelength[i];
      out.data[pos * d_model + i] = static_cast<float>(i % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return out;
}

Tensor learned_positions(int T, const Tensor& table) {
  const int64_t rows = table.shape[0], d = table.shape[1];
  if (T > rows)
    throw Error("text has " + std::to_string(T) + " tokens but the loaded position table has only " +
                std::to_string(rows) + " positions");
  return Tensor({T, d}, std::vector<float>(table.data.begin(), table.data.begin() + T * d));
}

}  // namespace mha
