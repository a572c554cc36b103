// A specified random generator, so the same seed draws bit-identical weights natively and in WASM
// (std::uniform_real_distribution differs between libstdc++ and libc++).
// Seeding: SplitMix64. Stream: xoshiro128** (Blackman & Vigna). Floats: the top 24 bits of a draw.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mha {

class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint32_t next_u32();
  float uniform01();                  // [0, 1), 24 random bits
  float uniform(float lo, float hi);  // [lo, hi)
  // out[i] = uniform(lo, hi) for i < n: the same numbers as n calls, ~5x faster because the state
  // stays in registers (a d_model 512 model draws a million weights on every seed change).
  void fill_uniform(float* out, size_t n, float lo, float hi);
  // The whole state, so that a run stopped and resumed (train/checkpoint.h) draws what it would have.
  std::array<uint32_t, 4> state() const { return {s_[0], s_[1], s_[2], s_[3]}; }
  void set_state(const std::array<uint32_t, 4>& s) { s_[0] = s[0], s_[1] = s[1], s_[2] = s[2], s_[3] = s[3]; }

 private:
  uint32_t s_[4];
};

// Derive an independent seed for a named stream (e.g. one per weight matrix, one per token row),
// so adding a stream never shifts the numbers of another.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

}  // namespace mha
