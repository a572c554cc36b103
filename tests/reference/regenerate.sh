#!/usr/bin/env bash
# npm run reference: every reference file in tests/reference/data, in the order they read each other
# (head_metrics.py reads the first two's traces; make_generate_reference.py rebuilds the models from
# their seeds; make_circuits_reference.py reads tiny_gpt2's model file and the shipped induction model). PyTorch's products run on Debian's reference BLAS, whatever BLAS the machine prefers:
# the files were made so, and OpenBLAS (which `npm run bench` installs for speed) sums in another
# order, a few ulp apart, so the same seeds would no longer give the same bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."
blas=/usr/lib/x86_64-linux-gnu/blas
if [ ! -e "$blas/libblas.so.3" ]; then
  echo "regenerate: $blas/libblas.so.3 is missing (Debian's libblas3, which python3-torch depends on)" >&2
  exit 1
fi
export LD_LIBRARY_PATH="$blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for script in make_reference.py make_model_reference.py head_metrics.py make_generate_reference.py make_circuits_reference.py; do
  /usr/bin/python3 "tests/reference/$script"
done
