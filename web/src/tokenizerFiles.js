// Which of the files a learner opened together is the model, which are its tokenizer and which its
// config: the standard names that sit beside a Hugging Face or OpenAI GPT-2 checkpoint.
//   vocabulary + merges: encoder.json + vocab.bpe (OpenAI), vocab.json + merges.txt (Hugging Face)
//   or one file: tokenizer.json (Hugging Face's tokenizers)
const VOCAB = ['encoder.json', 'vocab.json'];
const MERGES = ['vocab.bpe', 'merges.txt'];
const SINGLE = 'tokenizer.json';
const CONFIG = 'config.json';

const baseName = (file) => String(file.name || '').split(/[\\/]/).pop().toLowerCase();

// files: File[] -> {model: File | null, tokenizer: null | {json} | {vocab, merges}, config: File | null
// (Hugging Face's config.json: the model's heads), unknown: File[]}. A vocabulary without its merges
// (or the other way round) is reported as missing, by name.
export function sortFiles(files) {
  const byName = new Map(files.map((f) => [baseName(f), f]));
  const models = files.filter((f) => baseName(f).endsWith('.safetensors'));
  const pick = (names) => names.map((n) => byName.get(n)).find(Boolean) || null;
  const vocab = pick(VOCAB);
  const merges = pick(MERGES);
  const json = byName.get(SINGLE) || null;
  const config = byName.get(CONFIG) || null;
  const used = new Set([...models.slice(0, 1), vocab, merges, json, config].filter(Boolean));
  const tokenizer = json ? { json } : vocab || merges ? { vocab, merges } : null;
  const missing = tokenizer && !json && (!vocab || !merges) ? (vocab ? MERGES.join(' or ') : VOCAB.join(' or ')) : null;
  return { model: models[0] || null, extraModels: models.length - 1, tokenizer, config, missing, unknown: files.filter((f) => !used.has(f)) };
}
