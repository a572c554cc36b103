// The trained models' text (attributes.js TRAINED_DEFAULTS): a sentence said twice shows the
// induction model's induction heads, and scripts/history.js records them forming on it.
export const TRAINED_TEXT = '我是秦始皇，我是秦始皇';

// The texts the models of real text open on (without a text attribute; attributes.js), chosen so
// that their typed heads show (`mha heads --model models/<id>.safetensors --text …`) at their layer (MODEL_KINDS). For
// Tang 杜甫's 登高, whose every couplet is parallel (对仗), 64 characters: layer 0 has a head on the
// previous character (0.3, 0.58, 9.7× its chance), one on the same place in the previous half-line
// (0.0, parallel line, 6.4×) and one three characters back (0.1, 8.2×); on 王之涣's and 杜甫's
// quatrains the parallel-line head stays under 5×. For Brown a sentence of nouns with articles and
// verbs after their subjects: at layer 2, head 2.0 reads a noun's article (7.8× its chance) and
// heads 2.2 and 2.3 a verb's subject (6.0×, 7.8×); layer 0's head 0.0 the rarest word in view (5.2×).
export const OPENING_TEXTS = {
  tang: '风急天高猿啸哀，渚清沙白鸟飞回。无边落木萧萧下，不尽长江滚滚来。万里悲秋常作客，百年多病独登台。艰难苦恨繁霜鬓，潦倒新停浊酒杯。',
  brown: 'The farmer sold the land to a young man who wanted a house near the river, and the man built a barn for the horses.',
};
// The layer each opens on (attributes.js MODEL_KINDS; without a view-layer attribute), where the heads
// named above are; scripts/history.js records that layer's maps as the model formed.
export const OPENING_LAYERS = { tang: 0, brown: 2 };
