#include "analysis/circuits.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/eigenvalues.h"
#include "base/error.h"
#include "base/random.h"
#include "model/run_checks.h"

namespace mha {

const char* composition_mode_name(CompositionMode mode) {
  switch (mode) {
    case CompositionMode::q: return "Q";
    case CompositionMode::k: return "K";
    case CompositionMode::v: return "V";
  }
  return "";
}

namespace {

// rows × cols, row after row, in double.
struct Matrix {
  int rows = 0, cols = 0;
  std::vector<double> data;
  Matrix() = default;
  Matrix(int r, int c) : rows(r), cols(c), data(static_cast<size_t>(r) * c, 0.0) {}
  double& operator()(int i, int j) { return data[static_cast<size_t>(i) * cols + j]; }
  double operator()(int i, int j) const { return data[static_cast<size_t>(i) * cols + j]; }
};

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k) {
      const double x = a(i, k);
      if (x == 0) continue;
      for (int j = 0; j < b.cols; ++j) out(i, j) += x * b(k, j);
    }
  return out;
}

Matrix transpose(const Matrix& a) {
  Matrix out(a.cols, a.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) out(j, i) = a(i, j);
  return out;
}

// Σ_ij a_ij b_ij: tr(a bᵀ)
double dot(const Matrix& a, const Matrix& b) {
  double sum = 0;
  for (size_t i = 0; i < a.data.size(); ++i) sum += a.data[i] * b.data[i];
  return sum;
}

// A head's factors, x · W: q, k, v (d, D) and o (D, d), and their Gram matrices (D, D), with which
// every Frobenius norm of a product of two heads' low-rank circuits is a trace of D × D matrices:
// ‖V_A O_A X Yᵀ‖² = tr(M (YᵀY) Mᵀ (V_AᵀV_A)) with M = O_A X, never a d × d product.
struct HeadFactors {
  Matrix q, k, v, o;
  Matrix gram_q, gram_k, gram_v, gram_o;  // qᵀq, kᵀk, vᵀv, o oᵀ
  double norm_qk = 0, norm_ov = 0;        // ‖W_QK‖_F, ‖W_OV‖_F
};

void finish_factors(HeadFactors& f) {
  f.gram_q = multiply(transpose(f.q), f.q);
  f.gram_k = multiply(transpose(f.k), f.k);
  f.gram_v = multiply(transpose(f.v), f.v);
  f.gram_o = multiply(f.o, transpose(f.o));
  f.norm_qk = std::sqrt(dot(f.gram_q, f.gram_k));
  f.norm_ov = std::sqrt(dot(f.gram_v, f.gram_o));
}

// The columns h·D … of Wᵀ for W (out, in) as the model holds it, each row i scaled by γ_i (γ empty: 1).
Matrix reading_columns(const Tensor& w, int first_row, int D, const Tensor& gamma) {
  const int d = static_cast<int>(w.shape[1]);
  Matrix out(d, D);
  for (int j = 0; j < D; ++j)
    for (int i = 0; i < d; ++i)
      out(i, j) = static_cast<double>(w.data[static_cast<size_t>(first_row + j) * d + i]) * (gamma.data.empty() ? 1.0 : gamma.data[i]);
  return out;
}

HeadFactors head_factors(const ModelWeights& w, const Config& c, int layer, int head) {
  const BlockWeights& b = w.blocks.at(static_cast<size_t>(layer));
  const int D = c.d_head(), d = c.d_model, g = head / (c.heads / c.kv_heads_or_heads());
  HeadFactors f;
  f.q = reading_columns(b.attention.w_q, head * D, D, b.ln_1_weight);
  f.k = reading_columns(b.attention.w_k, g * D, D, b.ln_1_weight);
  f.v = reading_columns(b.attention.w_v, g * D, D, b.ln_1_weight);
  f.o = Matrix(D, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < D; ++j) f.o(j, i) = b.attention.w_o.data[static_cast<size_t>(i) * d + head * D + j];
  finish_factors(f);
  return f;
}

constexpr double kPi = 3.14159265358979323846;

// A head whose W_Q, W_K, W_V, W_O are standard Gaussian (Box–Muller on the project's generator).
HeadFactors gaussian_head(Rng& rng, int d, int D) {
  const auto fill = [&rng](Matrix& m) {
    for (size_t i = 0; i < m.data.size(); i += 2) {
      const double u = 1.0 - rng.uniform01(), angle = 2 * kPi * rng.uniform01(), r = std::sqrt(-2 * std::log(u));
      m.data[i] = r * std::cos(angle);
      if (i + 1 < m.data.size()) m.data[i + 1] = r * std::sin(angle);
    }
  };
  HeadFactors f{Matrix(d, D), Matrix(d, D), Matrix(d, D), Matrix(D, d), {}, {}, {}, {}, 0, 0};
  for (Matrix* m : {&f.q, &f.k, &f.v, &f.o}) fill(*m);
  finish_factors(f);
  return f;
}

double composition(const HeadFactors& a, const HeadFactors& b, CompositionMode mode) {
  const Matrix& x = mode == CompositionMode::q ? b.q : mode == CompositionMode::k ? b.k : b.v;
  const Matrix& gram_y = mode == CompositionMode::q ? b.gram_k : mode == CompositionMode::k ? b.gram_q : b.gram_o;
  const double norm_r = mode == CompositionMode::v ? b.norm_ov : b.norm_qk;
  const Matrix m = multiply(a.o, x);  // (D, D)
  const double squared = dot(multiply(multiply(m, gram_y), transpose(m)), a.gram_v);
  const double norms = a.norm_ov * norm_r;
  return norms > 0 ? std::sqrt(std::max(squared, 0.0)) / norms : 0.0;
}

constexpr CompositionMode kModes[3] = {CompositionMode::q, CompositionMode::k, CompositionMode::v};

// W_U (d, vocab): the unembedding's first readout's rows, transposed, each row times ln_f's γ.
Matrix unembedding_of(const ModelWeights& w, const Config& c) {
  const Tensor& u = w.unembedding_matrix();
  const int d = c.d_model, V = c.vocab_size;
  Matrix out(d, V);
  for (int v = 0; v < V; ++v)
    for (int i = 0; i < d; ++i)
      out(i, v) = static_cast<double>(u.data[static_cast<size_t>(v) * d + i]) * (w.ln_f_weight.data.empty() ? 1.0 : w.ln_f_weight.data[i]);
  return out;
}

// Rows `rows` of a (n, d) table as a (rows, d) matrix.
Matrix table_rows(const Tensor& table, const std::vector<int32_t>& rows) {
  const int d = static_cast<int>(table.shape[1]);
  Matrix out(static_cast<int>(rows.size()), d);
  for (size_t r = 0; r < rows.size(); ++r)
    for (int i = 0; i < d; ++i) out(static_cast<int>(r), i) = table.data[static_cast<size_t>(rows[r]) * d + i];
  return out;
}

void check_blocks(const Config& c) {
  if (!has_blocks(c.preset)) throw Error(ErrorCode::needs_blocks, "model");
}

}  // namespace

CircuitScores circuit_scores(const Model& model) {
  const Config& c = model.config();
  check_blocks(c);
  if (c.layers < 2) throw Error(ErrorCode::composition_needs_two_layers, "model", {{"layers", std::to_string(c.layers)}});
  const ModelWeights w = model.model_weights();
  const int D = c.d_head(), d = c.d_model;
  std::vector<std::vector<HeadFactors>> heads(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) heads[l].push_back(head_factors(w, c, l, h));

  CircuitScores out;
  // W_U W_E (d, d) once: each head's OV circuit is W_O (it) W_V, (D, D)
  const Matrix unembed_embed = multiply(unembedding_of(w, c), table_rows(w.token_table, [&] {
                                          std::vector<int32_t> all(static_cast<size_t>(c.vocab_size));
                                          for (int v = 0; v < c.vocab_size; ++v) all[v] = v;
                                          return all;
                                        }()));
  for (int l = 0; l < c.layers; ++l) {
    out.copying.emplace_back();
    for (const HeadFactors& f : heads[l]) {
      const Matrix circuit = multiply(multiply(f.o, unembed_embed), f.v);
      double real = 0, magnitude = 0;
      for (const std::complex<double>& e : eigenvalues(circuit.data, D)) real += e.real(), magnitude += std::abs(e);
      out.copying.back().push_back(magnitude > 0 ? real / magnitude : 0.0);
    }
  }
  for (CompositionMode mode : kModes)
    for (int lb = 1; lb < c.layers; ++lb)
      for (int la = 0; la < lb; ++la)
        for (int ha = 0; ha < c.heads; ++ha)
          for (int hb = 0; hb < c.heads; ++hb)
            out.composition.push_back({mode, la, ha, lb, hb, composition(heads[la][ha], heads[lb][hb], mode)});

  // The same score for heads that learned nothing: each draw a pair of Gaussian heads of this shape
  Rng rng(kCompositionBaselineSeed);
  for (int draw = 0; draw < kCompositionBaselineDraws; ++draw) {
    const HeadFactors a = gaussian_head(rng, d, D), b = gaussian_head(rng, d, D);
    for (int m = 0; m < 3; ++m) out.baseline[m] += composition(a, b, kModes[m]) / kCompositionBaselineDraws;
  }
  return out;
}

HeadCircuit head_circuit(const Model& model, const std::vector<int32_t>& ids, int layer, int head) {
  const Config& c = model.config();
  check_blocks(c);
  if (layer < 0 || layer >= c.layers || head < 0 || head >= c.heads) throw no_such_head(layer, head, c, "head");
  const int T = static_cast<int>(ids.size());
  check_ids(ids, 1, T, 0, c.max_positions, c);
  const ModelWeights w = model.model_weights();
  const HeadFactors f = head_factors(w, c, layer, head);

  HeadCircuit out;
  out.layer = layer, out.head = head, out.positions = T;
  for (int32_t id : ids)
    if (std::find(out.tokens.begin(), out.tokens.end(), id) == out.tokens.end()) out.tokens.push_back(id);
  std::vector<int32_t> positions(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) positions[t] = t;
  // (rows · W_Q)(rows · W_K)ᵀ: the bilinear form of W_QK on the rows, D wide in between
  const auto qk = [&f](const Matrix& rows) { return multiply(multiply(rows, f.q), transpose(multiply(rows, f.k))).data; };
  const Matrix pos = table_rows(w.position_table, positions), emb = table_rows(w.token_table, out.tokens);
  out.qk_positional = qk(pos);
  out.qk_token = qk(emb);
  const Matrix raised = multiply(multiply(multiply(emb, f.v), f.o), unembedding_of(w, c));  // (n, vocab)
  const int n = static_cast<int>(out.tokens.size()), top = std::min(kOvTop, c.vocab_size);
  for (int s = 0; s < n; ++s) {
    for (int t = 0; t < n; ++t) out.ov.push_back(raised(s, out.tokens[t]));
    std::vector<std::pair<int32_t, double>> row;
    for (int v = 0; v < c.vocab_size; ++v) row.emplace_back(v, raised(s, v));
    std::partial_sort(row.begin(), row.begin() + top, row.end(),
                      [](const auto& x, const auto& y) { return x.second > y.second || (x.second == y.second && x.first < y.first); });
    row.resize(static_cast<size_t>(top));
    out.ov_top.push_back(row);
  }
  return out;
}

nlohmann::json circuits_to_json(const CircuitScores& s) {
  nlohmann::json copying = nlohmann::json::array(), composition = nlohmann::json::array();
  for (size_t l = 0; l < s.copying.size(); ++l)
    for (size_t h = 0; h < s.copying[l].size(); ++h) copying.push_back({{"layer", l}, {"head", h}, {"score", s.copying[l][h]}});
  for (const CompositionScore& e : s.composition)
    composition.push_back({{"mode", composition_mode_name(e.mode)},
                           {"from", {e.from_layer, e.from_head}},
                           {"to", {e.to_layer, e.to_head}},
                           {"score", e.score}});
  return {{"copying", copying},
          {"composition", composition},
          {"baseline", {{"Q", s.baseline[0]}, {"K", s.baseline[1]}, {"V", s.baseline[2]}}}};
}

nlohmann::json head_circuit_to_json(const HeadCircuit& h) {
  const auto rows = [](const std::vector<double>& values, size_t width) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < values.size(); i += width)
      out.push_back(std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(i), values.begin() + static_cast<std::ptrdiff_t>(i + width)));
    return out;
  };
  nlohmann::json top = nlohmann::json::array();
  for (const auto& row : h.ov_top) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& [id, value] : row) pairs.push_back({id, value});
    top.push_back(pairs);
  }
  return {{"layer", h.layer},
          {"head", h.head},
          {"tokens", h.tokens},
          {"qk_positional", rows(h.qk_positional, static_cast<size_t>(h.positions))},
          {"qk_token", rows(h.qk_token, h.tokens.size())},
          {"ov", rows(h.ov, h.tokens.size())},
          {"ov_top", top}};
}

}  // namespace mha
