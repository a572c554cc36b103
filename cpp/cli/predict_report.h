// `mha predict`: the next-token candidates the model gives at each position, with probabilities,
// and whether its first choice is the token that actually comes next; for a recall model (its file
// says task recall), each readout's candidates and whether its first choice is the id k places back.
// A next token that is <unk> (a model with a vocabulary of its own) is not scored, as the held-out
// accuracy leaves it out: guessing "some word I do not know" is not reading language.
#pragma once

#include <string>

#include "text/tokenizer.h"
#include "model/trace.h"

namespace mha_cli {

// tokenizer (may be null): names predicted ids that are not in the text, where it has a vocabulary.
std::string predict_report(const mha::Trace& trace, int top, const mha::Tokenizer* tokenizer = nullptr);

// An id as the text it had in this run (first occurrence), else as its vocabulary entry, else as #id;
// with a vocabulary of the model's own, its entry first (id 0 is <unk>, whatever word it stood for).
// A line break reads ↵ and a lone space ␣, as on the page: the name goes into a line of a report.
std::string token_name(const mha::Trace& trace, const mha::Tokenizer* tokenizer, int32_t id);

}  // namespace mha_cli
