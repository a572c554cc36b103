// Native benchmarks (Google Benchmark): the full forward pass at the sizes and the
// kernels on their own, with GFLOP/s. Run: npm run bench:native (or build/native/mha_bench).
//   S  T=8,   d_model=64,  heads=4      a teaching size
//   M  T=128, d_model=768, heads=12     a GPT-2 small layer
//   L  T=512, d_model=768, heads=12
// FLOPs of one forward: 8·T·d² (four projections) + 4·T²·d (Q·Kᵀ and P·V), as in the issue.
#include <benchmark/benchmark.h>

#include "model.h"
#include "random.h"

namespace {

struct Size {
  const char* name;
  int T, d_model, heads;
};
constexpr Size kSizes[] = {{"S", 8, 64, 4}, {"M", 128, 768, 12}, {"L", 512, 768, 12}};

double forward_flops(const Size& s) {
  const double T = s.T, d = s.d_model;
  return 8 * T * d * d + 4 * T * T * d;
}

mha::Tensor random_input(int T, int d) {
  mha::Rng rng(42);
  mha::Tensor x({1, T, d});
  for (float& v : x.data) v = rng.uniform(-1.0f, 1.0f);
  return x;
}

void forward(benchmark::State& state, Size size, bool causal, mha::KernelPath path) {
  mha::Config c;
  c.d_model = size.d_model;
  c.heads = size.heads;
  c.causal = causal;
  const mha::Model model(c);
  const mha::Tensor x = random_input(size.T, size.d_model);
  mha::Trace trace;  // refilled in place: what the page and a server would do
  for (auto _ : state) {
    model.run_input_into(trace, x, path);
    benchmark::DoNotOptimize(trace.get("y").data.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(forward_flops(size) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
  for (const Size& s : kSizes) {
    for (bool causal : {false, true}) {
      const std::string name = std::string("forward/") + s.name + (causal ? "/causal" : "/full");
      benchmark::RegisterBenchmark((name + "/simd").c_str(), forward, s, causal, mha::KernelPath::simd)
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.5);
      if (s.T <= 128)  // the scalar oracle is slow at L; M is enough to show the gap
        benchmark::RegisterBenchmark((name + "/scalar").c_str(), forward, s, causal, mha::KernelPath::scalar)
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.2);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
