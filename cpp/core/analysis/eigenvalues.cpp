#include "analysis/eigenvalues.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/error.h"

namespace mha {

namespace {

// a(i, j) with i, j from 1, as the routines are written: their index arithmetic stays checkable
// against the book line by line.
struct OneBased {
  double* data;
  int n;
  double& operator()(int i, int j) const { return data[static_cast<size_t>(i - 1) * n + (j - 1)]; }
};

double sign_of(double magnitude, double sign) { return sign >= 0 ? std::fabs(magnitude) : -std::fabs(magnitude); }

// Scales row i and column i by powers of 2 until their norms are close: the similarity leaves the
// eigenvalues as they are and makes the QR iteration's rounding relative to a smaller norm.
void balance(const OneBased& a) {
  const double radix = 2.0, radix2 = radix * radix;
  for (bool done = false; !done;) {
    done = true;
    for (int i = 1; i <= a.n; ++i) {
      double r = 0, c = 0;
      for (int j = 1; j <= a.n; ++j)
        if (j != i) c += std::fabs(a(j, i)), r += std::fabs(a(i, j));
      if (c == 0 || r == 0) continue;
      const double s = c + r;
      double f = 1, g = r / radix;
      while (c < g) f *= radix, c *= radix2;
      g = r * radix;
      while (c > g) f /= radix, c /= radix2;
      if ((c + r) / f < 0.95 * s) {
        done = false;
        for (int j = 1; j <= a.n; ++j) a(i, j) /= f;
        for (int j = 1; j <= a.n; ++j) a(j, i) *= f;
      }
    }
  }
}

// Upper Hessenberg form by Gaussian elimination with pivoting, each step a similarity; what lies
// below the subdiagonal is zeroed after.
void to_hessenberg(const OneBased& a) {
  for (int m = 2; m < a.n; ++m) {
    double x = 0;
    int pivot = m;
    for (int j = m; j <= a.n; ++j)
      if (std::fabs(a(j, m - 1)) > std::fabs(x)) x = a(j, m - 1), pivot = j;
    if (pivot != m) {
      for (int j = m - 1; j <= a.n; ++j) std::swap(a(pivot, j), a(m, j));
      for (int j = 1; j <= a.n; ++j) std::swap(a(j, pivot), a(j, m));
    }
    if (x == 0) continue;
    for (int i = m + 1; i <= a.n; ++i) {
      double y = a(i, m - 1);
      if (y == 0) continue;
      y /= x;
      a(i, m - 1) = y;
      for (int j = m; j <= a.n; ++j) a(i, j) -= y * a(m, j);
      for (int j = 1; j <= a.n; ++j) a(j, m) += y * a(j, i);
    }
  }
  for (int i = 3; i <= a.n; ++i)
    for (int j = 1; j <= i - 2; ++j) a(i, j) = 0;
}

// Francis's double-shift QR on the Hessenberg matrix: each sweep chases a 3 × 3 Householder bulge
// down the subdiagonal; a negligible subdiagonal entry splits off a 1 × 1 (real) or 2 × 2 (a real
// pair or a conjugate pair) block at the bottom. Exceptional shifts at 10 and 20 iterations.
std::vector<std::complex<double>> hessenberg_qr(const OneBased& a) {
  const int n = a.n;
  std::vector<double> wr(static_cast<size_t>(n) + 1), wi(static_cast<size_t>(n) + 1);
  double norm = 0;
  for (int i = 1; i <= n; ++i)
    for (int j = std::max(i - 1, 1); j <= n; ++j) norm += std::fabs(a(i, j));
  int nn = n, l = 1;
  double t = 0;  // the exceptional shifts, added back to what deflates
  while (nn >= 1) {
    int its = 0;
    do {
      for (l = nn; l >= 2; --l) {
        double s = std::fabs(a(l - 1, l - 1)) + std::fabs(a(l, l));
        if (s == 0) s = norm;
        if (std::fabs(a(l, l - 1)) + s == s) {
          a(l, l - 1) = 0;
          break;
        }
      }
      double x = a(nn, nn);
      if (l == nn) {  // a 1 × 1 block
        wr[nn] = x + t;
        wi[nn--] = 0;
        continue;
      }
      double y = a(nn - 1, nn - 1), w = a(nn, nn - 1) * a(nn - 1, nn);
      if (l == nn - 1) {  // a 2 × 2 block
        const double p = 0.5 * (y - x), q = p * p + w;
        double z = std::sqrt(std::fabs(q));
        x += t;
        if (q >= 0) {
          z = p + sign_of(z, p);
          wr[nn - 1] = wr[nn] = x + z;
          if (z != 0) wr[nn] = x - w / z;
          wi[nn - 1] = wi[nn] = 0;
        } else {
          wr[nn - 1] = wr[nn] = x + p;
          wi[nn - 1] = -(wi[nn] = z);
        }
        nn -= 2;
        continue;
      }
      if (its == 60) throw Error("internal: the eigenvalue iteration did not converge");
      if (its == 10 || its == 20) {
        t += x;
        for (int i = 1; i <= nn; ++i) a(i, i) -= x;
        const double s = std::fabs(a(nn, nn - 1)) + std::fabs(a(nn - 1, nn - 2));
        y = x = 0.75 * s;
        w = -0.4375 * s * s;
      }
      ++its;
      // where the bulge starts: the lowest m whose two subdiagonal entries are negligible
      int m = nn - 2;
      double p = 0, q = 0, r = 0, z = 0;
      for (; m >= l; --m) {
        z = a(m, m);
        r = x - z;
        double s = y - z;
        p = (r * s - w) / a(m + 1, m) + a(m, m + 1);
        q = a(m + 1, m + 1) - z - r - s;
        r = a(m + 2, m + 1);
        s = std::fabs(p) + std::fabs(q) + std::fabs(r);
        p /= s, q /= s, r /= s;
        if (m == l) break;
        const double u = std::fabs(a(m, m - 1)) * (std::fabs(q) + std::fabs(r));
        const double v = std::fabs(p) * (std::fabs(a(m - 1, m - 1)) + std::fabs(z) + std::fabs(a(m + 1, m + 1)));
        if (u + v == v) break;
      }
      for (int i = m + 2; i <= nn; ++i) {
        a(i, i - 2) = 0;
        if (i != m + 2) a(i, i - 3) = 0;
      }
      for (int k = m; k <= nn - 1; ++k) {
        if (k != m) {
          p = a(k, k - 1);
          q = a(k + 1, k - 1);
          r = k != nn - 1 ? a(k + 2, k - 1) : 0;
          if ((x = std::fabs(p) + std::fabs(q) + std::fabs(r)) != 0) p /= x, q /= x, r /= x;
        }
        const double s = sign_of(std::sqrt(p * p + q * q + r * r), p);
        if (s == 0) continue;
        if (k == m) {
          if (l != m) a(k, k - 1) = -a(k, k - 1);
        } else {
          a(k, k - 1) = -s * x;
        }
        p += s;
        x = p / s, y = q / s, z = r / s;
        q /= p, r /= p;
        for (int j = k; j <= nn; ++j) {  // rows k … k + 2
          p = a(k, j) + q * a(k + 1, j);
          if (k != nn - 1) {
            p += r * a(k + 2, j);
            a(k + 2, j) -= p * z;
          }
          a(k + 1, j) -= p * y;
          a(k, j) -= p * x;
        }
        for (int i = l; i <= std::min(nn, k + 3); ++i) {  // columns k … k + 2
          p = x * a(i, k) + y * a(i, k + 1);
          if (k != nn - 1) {
            p += z * a(i, k + 2);
            a(i, k + 2) -= p * r;
          }
          a(i, k + 1) -= p * q;
          a(i, k) -= p;
        }
      }
    } while (l < nn - 1);
  }
  std::vector<std::complex<double>> out;
  for (int i = 1; i <= n; ++i) out.emplace_back(wr[i], wi[i]);
  return out;
}

}  // namespace

std::vector<std::complex<double>> eigenvalues(std::vector<double> a, int n) {
  if (n < 0 || a.size() != static_cast<size_t>(n) * static_cast<size_t>(n))
    throw Error("internal: eigenvalues of a matrix that is not n × n");
  const OneBased m{a.data(), n};
  balance(m);
  to_hessenberg(m);
  return hessenberg_qr(m);
}

}  // namespace mha
