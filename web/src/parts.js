// The widget's parts: code for what a learner opens later, not for the first picture. Each is a
// classic script beside mha-demo.js, mha-{name}.js (it loads from file:// too), that
// scripts/build-web.sh writes from its entry and a demo loads when it first shows what the part draws:
//   self.mhaParts[name] = {...the entry's exports, strings: {key: {en: text}}}
// A part shares the widget's own modules rather than carrying copies (one table of strings, one
// catalog, one i18n): the build finds the modules both import, the widget lists them in
// self.mhaShared and the part's script reads them from there. Its strings are the keys that start
// with its prefixes, in English (the other languages' scripts carry every key of theirs); they leave
// the widget's bundle with it. Its stylesheet is the entry's `css`, added to the demo's shadow root.
export const PARTS = {
  // Train it yourself and Why several heads?: the panels that train in a worker.
  training: { entry: 'views/chrome/training.js', strings: ['train.', 'sweep.'] },
  // What the download buttons make: a view's figure as SVG or PNG, a stage's tensors as CSV or safetensors.
  downloads: { entry: 'export/downloads.js', strings: [] },
  // The predict stage's Generate, KV cache and cache calculator.
  decoding: { entry: 'views/stages/decoding.js', strings: ['gen.', 'kv.'] },
  // How the heads connect: composition, copying and activation patching at the attend stage.
  circuits: { entry: 'views/stages/circuits.js', strings: ['circ.'] },
  // The whole WebAssembly core, for what trains or takes gradients (gradients.js): the widget's own
  // module leaves them out, 30 KB of its 300 KB.
  gradients: { entry: 'gradients.js', strings: [] },
};

export const partScript = (name) => `mha-${name}.js`;
// The text a recipe of real text trains on (scripts/web-parts.js corpusTexts), beside the widget too.
export const textScript = (corpus) => `mha-text-${corpus}.js`;
// How a shipped model formed (models/trained-models.json `history`, scripts/history.js), beside it too.
export const historyScript = (id) => `mha-history-${id}.js`;

// Whether the string `key` travels with a part rather than in the widget.
export const partOfString = (key) => Object.keys(PARTS).find((name) => PARTS[name].strings.some((prefix) => key.startsWith(prefix)));
