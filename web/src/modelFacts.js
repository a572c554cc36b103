// What the model shown is, read off its config (the core's Model::facts, mha.d.ts ModelFacts): the
// page's texts say only what is true of it, never which menu item made it.
//   structure: one attention layer, or blocks with residuals and a prediction
//   story: weights drawn from the seed, or loaded (a file, or training); trained on the induction task
//   reading: its tokenizer, or none (token ids); its token and position tables
export const hasBlocks = (config) => config.model !== 'single';
export const isLoaded = (config) => config.weights === 'loaded';
export const onInductionTask = (config) => config.task === 'induction';
// Trained on real text (the corpus task: the next token of Tang poems or of Brown's English), with a
// vocabulary of its own; its tokenizer ('chars' or 'words') says which.
export const onRealText = (config) => config.task === 'corpus' && ownVocabulary(config);
// A model of K > 1 readouts: at each position it predicts the K tokens before it (the recall task's).
export const recalls = (config) => config.readouts > 1;
export const readsIds = (config) => config.tokenizer === '';
// A vocabulary of its own, read from its file (the corpus models'): a character or a word per id,
// <unk> (id 0) for what it never saw.
export const ownVocabulary = (config) => config.tokenizer === 'chars' || config.tokenizer === 'words';
export const UNK = 0; // vocab_tokenizer.h's kUnk
// A single layer's seeded rows × √d_model and sinusoidal positions, as in "Attention Is All You Need".
export const scaledEmbedding = (config) => config.tokenTable === 'scaled';

// Whether any head of the run is labelled an induction head by the core.
export const hasInductionHeads = (result) =>
  Boolean(result.heads) && result.heads.layers.some((layer) => layer.heads.some((h) => h.label === 'induction'));

// A table's rows: learned (a file's, or trained) or drawn at random. For captions: '.learned' | '.random'.
export const tableKind = (config) => (isLoaded(config) ? 'learned' : 'random');

// Whether every head of the first layer draws one stripe of its own, as the recall story tells: its
// strongest offset carries most of its weight and no two heads share one (the core's offset metric).
export function oneOffsetPerHead(result) {
  const heads = result.heads && result.heads.layers[0] ? result.heads.layers[0].heads : [];
  const offsets = heads.map((h) => (h.offset !== null && h.offset_weight >= 0.5 ? h.offset : null));
  return heads.length > 0 && !offsets.includes(null) && new Set(offsets).size === offsets.length;
}
