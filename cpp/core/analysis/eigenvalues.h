// The eigenvalues of a general real matrix, in double: what a head's copying score sums
// (circuits.h). Balancing, reduction to upper Hessenberg form by stabilised elimination, then
// Francis's double-shift QR iteration (the EISPACK routines balanc, elmhes and hqr, as Numerical
// Recipes §11.5–11.6 writes them). Eigenvalues only: no vectors are accumulated.
#pragma once

#include <complex>
#include <vector>

namespace mha {

// a: n × n, row after row (taken by value: the iteration works in it). Complex eigenvalues come in
// conjugate pairs; the order is the deflation's. Throws mha::Error if the QR iteration does not
// converge (it does for every matrix but contrived ones) or a is not n × n.
std::vector<std::complex<double>> eigenvalues(std::vector<double> a, int n);

}  // namespace mha
