#include "kernels/rope.h"

#include <cmath>

namespace mha {

namespace {

constexpr double kLn2 = 0.69314718055994530942;

// ln x, x > 0: x = m·2^e with m in [√½, √2), ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| < 0.172.
double log_series(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [½, 1)
  if (m < 0.70710678118654752) m *= 2, --e;
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double term = s, sum = 0;
  for (int k = 1; k < 40; k += 2) sum += term / k, term *= s2;  // s^40 < 1e-30
  return 2 * sum + e * kLn2;
}

// e^x: x = n·ln 2 + r, |r| ≤ ½ ln 2, Taylor series of e^r, times 2^n (exact).
double exp_series(double x) {
  const double n = std::floor(x / kLn2 + 0.5);
  const double r = x - n * kLn2;
  double term = 1, sum = 1;
  for (int k = 1; k < 25; ++k) term *= r / k, sum += term;  // 0.35^25 / 25! < 1e-35
  return std::ldexp(sum, static_cast<int>(n));
}

}  // namespace

double rope_theta(int i, int D, double base) { return exp_series(-(2.0 * i / D) * log_series(base)); }

void rope_sincos(double a, double& cos_a, double& sin_a) {
  // a = k·π/2 + r, |r| ≤ π/4, with π/2 in two parts (fdlibm's): k·P1 is exact for k < 2^20.
  constexpr double P1 = 1.57079632673412561417e+00, P2 = 6.07710050650619224932e-11;
  const double k = std::floor(a / (P1 + P2) + 0.5);
  const double r = (a - k * P1) - k * P2, r2 = r * r;
  double s = 0, c = 0, term_s = r, term_c = 1;
  for (int n = 1; n < 26; n += 2) {  // r^26 / 26! < 1e-28
    s += term_s, c += term_c;
    term_s *= -r2 / ((n + 1) * (n + 2));
    term_c *= -r2 / (n * (n + 1));
  }
  const long quadrant = static_cast<long>(k) & 3;
  const double sin_r[4] = {s, c, -s, -c}, cos_r[4] = {c, -s, -c, s};
  sin_a = sin_r[quadrant], cos_a = cos_r[quadrant];
}

const RopeTables& rope_tables(int T, int D, double base) {
  thread_local RopeTables tables;
  if (tables.D == D && tables.base == base && tables.rows >= T) return tables;
  const int half = D / 2;
  tables.rows = T, tables.D = D, tables.base = base;
  tables.cos.resize(static_cast<size_t>(T) * half);
  tables.sin.resize(static_cast<size_t>(T) * half);
  for (int i = 0; i < half; ++i) {
    const float theta = static_cast<float>(rope_theta(i, D, base));  // transformers' inv_freq, float32
    for (int t = 0; t < T; ++t) {
      const float angle = static_cast<float>(t) * theta;  // float32, as transformers' freqs
      double c = 0, s = 0;
      rope_sincos(angle, c, s);
      tables.cos[static_cast<size_t>(t) * half + i] = static_cast<float>(c);
      tables.sin[static_cast<size_t>(t) * half + i] = static_cast<float>(s);
    }
  }
  return tables;
}

}  // namespace mha
