#!/usr/bin/env bash
# Installs what the build needs and the machine lacks: Debian packages (as root, or with
# passwordless sudo) and the npm dev dependencies. Idempotent: a machine that has everything is
# checked in about a second and left alone.
#   scripts/setup.sh start   what npm start needs: compilers, Emscripten, header libraries
#   scripts/setup.sh test    all of that, plus Chromium for the browser tests
#   scripts/setup.sh bench   what start needs, plus the benchmarks' peers: onnxruntime-web into
#                            bench/node_modules (bench/package.json; npm test never installs it) and
#                            PyTorch, which exports their ONNX graphs and is the native peer
#   scripts/setup.sh reference  PyTorch, for npm run reference (tests/reference/*.py)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-test}

# package:why
packages=(
  "cmake:build system"
  "g++:native compiler"
  "make:build tool"
  "libxsimd-dev:SIMD kernels"
  "nlohmann-json3-dev:safetensors JSON header"
  "libcli11-dev:command-line parsing"
  "emscripten:the WebAssembly build"
  "binaryen:wasm-dis, for the SIMD128 check"
  "zopfli:the widget's embedded wasm, gzipped 5 % smaller than zlib can"
  "doctest-dev:native test suite"
  "libbenchmark-dev:native benchmarks (npm run bench:native)"
  "ccache:a compiler cache: a fresh clone builds what an earlier one compiled from it (scripts/build.sh)"
)
if [ "$profile" = "reference" ]; then
  packages=()
fi
if [ "$profile" = "bench" ] || [ "$profile" = "reference" ]; then
  packages+=("python3-torch:PyTorch for /usr/bin/python3: the reference files, the benchmarks' ONNX graphs and native peer")
fi
if [ "$profile" = "bench" ]; then
  packages+=("libopenblas0-pthread:PyTorch's BLAS in the native comparison (Debian's default is reference BLAS, ~10x slower)")
fi
if [ "$profile" = "test" ]; then
  packages+=("chromium:browser tests" "fonts-wqy-zenhei:CJK glyphs in headless Chromium"
             "clang-14:the fuzz targets (scripts/fuzz.sh)" "libclang-rt-14-dev:libFuzzer and the sanitizers' runtimes for clang 14")
fi

missing=()
for entry in "${packages[@]}"; do
  name=${entry%%:*}
  if ! dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$name")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    echo "setup: these packages are missing and installing them needs root:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm dev dependencies (esbuild, playwright-core without its browser download, sirv), from the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund
fi

# Benchmark-only peers, in their own folder and lock file.
if [ "$profile" = "bench" ]; then
  if [ ! -f bench/node_modules/.package-lock.json ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
    echo "setup: installing the benchmarks' npm packages into bench/node_modules"
    npm ci --prefix bench --no-audit --no-fund
  fi
fi
