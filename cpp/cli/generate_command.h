// `mha generate`: a model continues a text (or ids) token by token, greedy or sampled, with the KV
// cache or, with --no-cache, running the whole sequence again at every step (the cache's check).
#pragma once

#include <CLI/CLI.hpp>

namespace mha_cli {

CLI::App* add_generate_command(CLI::App& app);

}  // namespace mha_cli
