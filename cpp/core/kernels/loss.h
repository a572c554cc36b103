// Next-token loss: a softmax over the vocabulary and the cross-entropy of the target, per row.
#pragma once

#include <cstdint>

namespace mha {

// probs (N, V) = softmax of each row of logits, with the project's polynomial exp (simd_exp.h): the
// same bits natively and in WebAssembly.
void softmax_forward_rows(float* probs, const float* logits, int N, int V);

// losses[n] = −ln softmax(logits[n])[targets[n]] = ln Σ_v exp(logits[n, v] − max) − (logits[n, target] − max),
// in double; a target of −1 counts no loss (0). From the logits, not the probabilities: a confident
// wrong answer whose probability underflows to 0 is a large loss, not an infinite one. The loss is
// only reported (the gradient below needs no logarithm), so std::log's last bit may differ between platforms.
void crossentropy_forward(float* losses, const float* logits, const int32_t* targets, int N, int V);

// dlogits[n, v] += dloss · (probs[n, v] − [v = target]) for rows whose target is ≥ 0: the gradient of
// softmax and cross-entropy together. dloss is 1 / (counted rows) for a mean loss.
void crossentropy_softmax_backward(float* dlogits, const float* probs, const int32_t* targets, int N, int V, float dloss);

}  // namespace mha
