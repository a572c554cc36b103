#include "base/random.h"

namespace mha {

static uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

Rng::Rng(uint64_t seed) {
  uint64_t state = seed;
  uint64_t a = splitmix64(state), b = splitmix64(state);
  s_[0] = static_cast<uint32_t>(a);
  s_[1] = static_cast<uint32_t>(a >> 32);
  s_[2] = static_cast<uint32_t>(b);
  s_[3] = static_cast<uint32_t>(b >> 32);
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;  // the all-zero state never leaves zero
}

// One xoshiro128** step on a state held in locals.
static inline uint32_t step(uint32_t (&s)[4]) {
  const uint32_t result = rotl(s[1] * 5, 7) * 9;
  const uint32_t t = s[1] << 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 11);
  return result;
}

static inline float to_unit(uint32_t bits) { return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f); }

uint32_t Rng::next_u32() { return step(s_); }

float Rng::uniform01() { return to_unit(next_u32()); }

float Rng::uniform(float lo, float hi) { return lo + (hi - lo) * uniform01(); }

void Rng::fill_uniform(float* out, size_t n, float lo, float hi) {
  uint32_t s[4] = {s_[0], s_[1], s_[2], s_[3]};
  const float span = hi - lo;
  for (size_t i = 0; i < n; ++i) out[i] = lo + span * to_unit(step(s));
  for (int i = 0; i < 4; ++i) s_[i] = s[i];
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  uint64_t state = seed ^ (stream * 0xD1B54A32D192ED03ull);
  return splitmix64(state);
}

}  // namespace mha
