#include "io/config_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "io/json_text.h"
#include "io/safetensors.h"

namespace mha {

ModelConfigFile parse_config_json(const std::string& text, const std::string& name) {
  // the one JSON reader of the core's files: errors name the file, a key given twice is refused
  const nlohmann::json j =
      parse_json_text(text.data(), text.data() + text.size(), printable(name, 200),
                      {ErrorCode::config_not_json, ErrorCode::config_number_too_large, ErrorCode::config_key_twice, ""});
  if (!j.is_object()) throw file_error(ErrorCode::config_not_object, name);
  ModelConfigFile out;
  out.name = name;
  const auto size = [&](const char* key, int& into) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    const double v = it->is_number() ? it->get<double>() : NAN;
    if (!(v >= 1 && v <= 2147483647.0) || v != std::floor(v))
      throw file_error(ErrorCode::config_bad_size, name, {{"key", key}, {"value", printable(it->dump(), 40)}});
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
