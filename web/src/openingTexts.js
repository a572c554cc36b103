// The trained models' text (attributes.js TRAINED_DEFAULTS): a sentence said twice shows the
// induction model's induction heads, and scripts/history.js records them forming on it.
export const TRAINED_TEXT = '我是秦始皇，我是秦始皇';

// The texts the models of real text open on (without a text attribute; attributes.js), chosen so
// that their typed heads show (`mha heads --model models/<id>.safetensors --text …`) at their layer (MODEL_KINDS). For
// Tang 杜甫's 春望, five-character regulated verse whose couplets are parallel (对仗), 48 characters:
// layer 0 has a head on the previous character (0.0, 0.77, 10.5× its chance), one at i − 2 (0.2) and
// head 0.3, which looks five characters back, named parallel line (0.38, 7.2×): in five-character verse
// that is the same place in the previous half-line (named so on 7 of 8 such poems: models/README.md).
// On seven-character verse (登高) head 0.3 is a plain i − 5. For Brown a sentence of nouns with articles and
// verbs after their subjects: at layer 3, heads 3.0 and 3.2 read a verb's subject (5.8×, 8.9× its
// chance; on held-out text 3.2 is the noun → article head); layer 0's head 0.2 the rarest word in
// view (5.2×; 6.6× on held-out text). Of six other plain sentences none names any of them.
export const OPENING_TEXTS = {
  tang: '国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。烽火连三月，家书抵万金。白头搔更短，浑欲不胜簪。',
  brown: 'The farmer sold the land to a young man who wanted a house near the river, and the man built a barn for the horses.',
};
// The layer each opens on (attributes.js MODEL_KINDS; without a view-layer attribute), where the heads
// named above are; scripts/history.js records that layer's maps as the model formed.
export const OPENING_LAYERS = { tang: 0, brown: 3 };
