#include "io/config_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/error.h"

namespace mha {

ModelConfigFile parse_config_json(const std::string& text, const std::string& name) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    throw Error(name + " is not a JSON object such as Hugging Face's config.json ({\"n_head\": 12, …})");
  ModelConfigFile out;
  out.name = name;
  const auto size = [&](const char* key, int& into) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    const double v = it->is_number() ? it->get<double>() : NAN;
    if (!(v >= 1 && v <= 2147483647.0) || v != std::floor(v))
      throw Error(name + ": " + key + " must be a whole number of at least 1, got " + it->dump());
    into = static_cast<int>(v);
  };
  size("n_head", out.heads);
  size("n_layer", out.layers);
  size("n_positions", out.positions);
  size("n_embd", out.d_model);
  size("vocab_size", out.vocab);
  return out;
}

}  // namespace mha
