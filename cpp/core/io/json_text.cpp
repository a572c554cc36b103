#include "io/json_text.h"

#include <set>
#include <vector>

#include "base/error.h"

namespace mha {

nlohmann::json parse_json_text(const char* begin, const char* end, const std::string& file,
                               const JsonErrorCodes& codes) {
  using nlohmann::json;
  std::vector<std::set<std::string>> keys;  // of each object being read, innermost last
  const auto unique_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start)
      keys.emplace_back();
    else if (event == json::parse_event_t::object_end)
      keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.back().insert(parsed.get<std::string>()).second)
      throw Error(codes.key_twice, codes.field, {{"file", file}, {"key", parsed.get<std::string>()}});
    return true;
  };
  try {
    return json::parse(begin, end, unique_keys);
  } catch (const json::parse_error& e) {
    throw Error(codes.not_json, codes.field, {{"file", file}, {"byte", std::to_string(e.byte)}});
  } catch (const json::out_of_range& e) {
    // 406, "number overflow parsing '1e400'": the number is between the quotes
    const std::string what = e.what();
    const size_t open = what.find('\''), close = what.rfind('\'');
    const std::string number =
        open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "?";
    throw Error(codes.number_too_large, codes.field, {{"file", file}, {"number", number.substr(0, 40)}});
  }
}

}  // namespace mha
