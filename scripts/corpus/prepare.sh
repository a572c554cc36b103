#!/usr/bin/env bash
# npm run corpus [-- --out DIR]: installs the corpus sources (scripts/corpus/package.json, their
# own lock file; the main package never needs them) when missing or older than the lock file, the
# way scripts/setup.sh installs the benchmarks' peers, then prepares the corpora.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f scripts/corpus/node_modules/.package-lock.json ] || [ scripts/corpus/package-lock.json -nt scripts/corpus/node_modules/.package-lock.json ]; then
  echo "corpus: installing the corpus sources into scripts/corpus/node_modules"
  npm ci --prefix scripts/corpus --no-audit --no-fund
fi
node scripts/corpus/prepare.js "$@"
