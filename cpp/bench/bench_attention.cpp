// Native benchmarks (Google Benchmark): the full forward pass at the sizes and the
// kernels on their own, with GFLOP/s. Run: npm run bench:native (or build/native/mha_bench).
//   S  T=8,   d_model=64,  heads=4      a teaching size
//   M  T=128, d_model=768, heads=12     a GPT-2 small layer
//   L  T=512, d_model=768, heads=12
// FLOPs of one forward: 8·T·d² (four projections) + 4·T²·d (Q·Kᵀ and P·V), as in the issue.
// And model/gpt2-small: a GPT-2-small-shaped model (12 layers, d_model 768, 12 heads, vocab 50257),
// T 128 ids to the logits (npm run bench:model), with the weights of $MHA_BENCH_MODEL (a GPT-2-layout
// safetensors file, as cpp/bench/export_onnx.py writes) or, without it, random ones of that shape.
// generate/gpt2-small: the same model continuing 32 ids by 64, greedy, with the KV cache (npm run
// bench:generate), the prompt timed apart from the new tokens; memory/copy: the memory bandwidth a
// decoding step's floor is measured against, a large copy (bytes moved: read + written).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include <vector>

#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "model/model.h"
#include "io/model_file.h"
#include "base/random.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "model/forward.h"
#include "model/generate.h"
#include "model/parameters.h"

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

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  mha::Rng(seed).fill_uniform(v.data(), n, -1.0f, 1.0f);
  return v;
}

mha::Tensor random_input(int T, int d) {
  return mha::Tensor({1, T, d}, random_floats(static_cast<size_t>(T) * d, 42));
}

void rate(benchmark::State& state, const char* name, double per_iteration) {
  state.counters[name] = benchmark::Counter(per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}

// The kernels of one forward, on their own. Each reports its share of the forward's work, so the
// rows add up to where a forward's time goes.

// Q, K, V in one product: x (T, d) · packed (d, 3d), as attention_forward runs it.
void qkv_projection(benchmark::State& state, Size s) {
  const int T = s.T, d = s.d_model;
  const std::vector<float> w = random_floats(static_cast<size_t>(3) * d * d, 1), x = random_floats(static_cast<size_t>(T) * d, 2);
  const mha::PackedMatrix packed = mha::pack_transposed(w.data(), 3 * d, d);
  std::vector<float> out(static_cast<size_t>(T) * 3 * d);
  for (auto _ : state) {
    mha::gemm_forward(out.data(), 3 * d, x.data(), d, packed, nullptr, T, 1.0f, mha::Triangle::none);
    benchmark::DoNotOptimize(out.data());
  }
  rate(state, "GFLOP/s", 6.0 * T * d * d * 1e-9);
}

// Q·Kᵀ/√D, softmax and P·V for every head, each head (T, D) as the split stage leaves it.
// attend_head: the three together in row blocks, as the forward runs them.
enum class AttentionPart { scores, softmax, weighted_sum, attend_head };

void attention_part(benchmark::State& state, Size s, bool causal, AttentionPart part) {
  const int T = s.T, D = s.d_model / s.heads, H = s.heads;
  const std::vector<float> q = random_floats(static_cast<size_t>(H) * T * D, 3), k = random_floats(q.size(), 4),
                           v = random_floats(q.size(), 5);
  std::vector<float> scores(static_cast<size_t>(H) * T * T), weights(scores.size()), out(q.size());
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  for (int h = 0; h < H; ++h)  // real scores and weights, so softmax and P·V see what they would
    mha::kernels::scores_forward_simd(&scores[h * T * T], &q[h * T * D], &k[h * T * D], T, D, scale, causal);
  for (int h = 0; h < H; ++h) mha::kernels::softmax_forward_simd(&weights[h * T * T], &scores[h * T * T], T, causal);
  for (auto _ : state) {
    for (int h = 0; h < H; ++h) {
      const size_t tt = static_cast<size_t>(h) * T * T, td = static_cast<size_t>(h) * T * D;
      if (part == AttentionPart::scores)
        mha::kernels::scores_forward_simd(&scores[tt], &q[td], &k[td], T, D, scale, causal);
      else if (part == AttentionPart::softmax)
        mha::kernels::softmax_forward_simd(&weights[tt], &scores[tt], T, causal);
      else if (part == AttentionPart::weighted_sum)
        mha::kernels::weighted_sum_forward_simd(&out[td], &weights[tt], &v[td], T, D, causal);
      else
        mha::kernels::attend_head_forward_simd(&scores[tt], &weights[tt], &out[td], &q[td], &k[td], &v[td], T, D, scale,
                                               causal);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::DoNotOptimize(weights.data());
    benchmark::DoNotOptimize(scores.data());
  }
  if (part == AttentionPart::softmax)
    rate(state, "Mexp/s", static_cast<double>(H) * T * T * 1e-6);
  else  // counted full, as the forward's FLOPs are
    rate(state, "GFLOP/s", (part == AttentionPart::attend_head ? 4.0 : 2.0) * H * T * T * D * 1e-9);
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

// The GPT-2-small-shaped model of $MHA_BENCH_MODEL, or random weights of that shape.
mha::LoadedModel gpt2_small_model(benchmark::State& state) {
  const char* file = std::getenv("MHA_BENCH_MODEL");
  state.SetLabel(file && *file ? file : "random weights ($MHA_BENCH_MODEL unset)");
  if (file && *file) {
    const std::vector<uint8_t> bytes = mha::read_file(file);
    return mha::read_model(mha::SafetensorsFile(bytes.data(), bytes.size()), mha::Preset::gpt2, 12);
  }
  mha::LoadedModel random;
  mha::Config& c = random.config;
  c.preset = mha::Preset::gpt2;
  c.layers = 12, c.d_model = 768, c.heads = 12, c.vocab_size = 50257, c.max_positions = 1024, c.causal = true;
  random.weights = mha::pack_model(mha::random_weights(c, 0.02f), c);
  return random;
}

// The ids of a prompt of T (scripts/bench-model.js, bench-generate.js and bench_pytorch.py use the same formula).
std::vector<int32_t> bench_ids(int T, int vocab) {
  std::vector<int32_t> ids(T);
  for (int t = 0; t < T; ++t) ids[t] = (t * 7919 + 13) % vocab;
  return ids;
}

// 2·T·(every matrix's size) + the attention products, 4·T²·d per layer (counted full, as above).
void gpt2_small(benchmark::State& state) {
  constexpr int T = 128;
  mha::LoadedModel loaded = gpt2_small_model(state);
  const mha::Config c = loaded.config;
  const mha::ModelWeights w = mha::unpack_model(loaded.weights, c);
  const mha::PreparedModel prepared = mha::prepare_model(w, c);
  const std::vector<int32_t> ids = bench_ids(T, c.vocab_size);
  mha::Trace trace;
  mha::model_forward(trace, ids, 1, T, w, prepared, c);  // untimed: the trace's buffers are allocated once
  for (auto _ : state) {
    mha::model_forward(trace, ids, 1, T, w, prepared, c);
    benchmark::DoNotOptimize(trace.get("logits").data.data());
  }
  const double d = c.d_model, matrices = c.layers * 12.0 * d * d + c.vocab_size * d;
  rate(state, "GFLOP/s", (2.0 * T * matrices + c.layers * 4.0 * T * T * d) * 1e-9);
}

// One iteration: a prompt of 32 ids continued by 64, greedy, with the KV cache. The first step runs
// the prompt (prefill) and draws the first new id; each later one runs one token. Counters: the
// prefill's ms, a decoding step's mean and median ms, and the new tokens' rate after the prefill.
void gpt2_small_generate(benchmark::State& state) {
  constexpr int prompt = 32, made = 64;
  const mha::Model model = mha::Model::from_loaded(gpt2_small_model(state));
  mha::GenerateOptions options;
  options.tokens = made;
  using clock = std::chrono::steady_clock;
  const auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  double prefill = 0;
  std::vector<double> steps;
  for (auto _ : state) {
    mha::Generator generator(model, bench_ids(prompt, model.config().vocab_size), options);
    clock::time_point t0 = clock::now();
    generator.step();
    prefill += ms(clock::now() - t0);
    while (!generator.done()) {
      t0 = clock::now();
      generator.step();
      steps.push_back(ms(clock::now() - t0));
    }
    benchmark::DoNotOptimize(generator.ids().data());
  }
  double total = 0;
  for (double x : steps) total += x;
  std::sort(steps.begin(), steps.end());
  state.counters["prefill_ms"] = prefill / static_cast<double>(state.iterations());
  state.counters["decode_ms"] = total / static_cast<double>(steps.size());
  state.counters["decode_median_ms"] = steps[steps.size() / 2];
}

// A copy of 256 MB, as STREAM counts it: every byte read and written, 2 × 256 MB moved.
void memory_copy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(256) << 20;
  std::vector<char> from(n, 1), to(n, 0);  // written once, so every page is mapped before timing
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), n);
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * static_cast<int64_t>(n));
}

void register_all() {
  benchmark::RegisterBenchmark("model/gpt2-small/T128", gpt2_small)->Unit(benchmark::kMillisecond)->MinTime(2.0);
  benchmark::RegisterBenchmark("generate/gpt2-small/prompt32-new64", gpt2_small_generate)->Unit(benchmark::kMillisecond)->Iterations(2);
  benchmark::RegisterBenchmark("memory/copy/256MB", memory_copy)->Unit(benchmark::kMillisecond)->MinTime(1.0);
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
  for (const Size& s : kSizes) {
    if (s.T < 128) continue;  // the kernels matter where the time is
    const std::string size = s.name;
    benchmark::RegisterBenchmark(("kernel/" + size + "/qkv_projection").c_str(), qkv_projection, s)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(0.3);
    for (bool causal : {false, true}) {
      const std::string mask = causal ? "/causal" : "/full";
      const std::pair<const char*, AttentionPart> parts[] = {
          {"scores", AttentionPart::scores},
          {"softmax", AttentionPart::softmax},
          {"weighted_sum", AttentionPart::weighted_sum},
          {"attend_head", AttentionPart::attend_head}};
      for (const auto& [name, part] : parts)
        benchmark::RegisterBenchmark(("kernel/" + size + "/" + name + mask).c_str(), attention_part, s, causal, part)
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.3);
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
