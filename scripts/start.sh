#!/usr/bin/env bash
# npm start: install what is missing, build, and serve the page.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh start
bash scripts/build.sh
echo
echo "The page also opens straight from disk: file://$PWD/web/index.html"
exec node scripts/serve.js
