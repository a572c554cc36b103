// GPT-2's first cut of text into words, before byte-pair merges: the pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// written out by hand (std::regex has no \p{L}). Alternatives are tried in that order at each
// position, as a backtracking regex does; \s is JavaScript's, like the reference gpt-3-encoder's.
#pragma once

#include <string>
#include <vector>

namespace mha {

// The pieces, in order; concatenated they give back `text`. `text` must be valid UTF-8 (check_text).
std::vector<std::string> gpt2_pretokenize(const std::string& text);

}  // namespace mha
