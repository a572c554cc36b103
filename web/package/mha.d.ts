// Types of the JavaScript API (web/mha.js), as the README's "In your own JavaScript" documents it.
// Written by hand; tests/node/package.test.js checks them against the running module (every member of
// createMha()'s result and every public method of each class below must be declared here, and
// nothing more) and compiles a usage file with `tsc --strict`.
//
// Where things go: a new method of Model, Trace, ModelBuilder, Trainer, Gpt2Tokenizer or Generator goes into
// its class below; a new member of what createMha() resolves to goes into `Mha`; a new option into
// its `…Options` interface, and into the core's table of options (cpp/core/options.h), which
// tests/node/options.test.js checks these interfaces against (catalog.options). Shapes are written (1, T, d_model), (1, heads, T, d_head) as in the README.
//
// The classes are reached through createMha()'s result (`new mha.Model()`), never imported: they are
// exported as types only. MhaError is a value too (createMha.MhaError, `import { MhaError }`).

export {};

// ---------- the module ----------

/** Loads the WebAssembly core and resolves to the API. Each call makes its own module instance. */
export declare function createMha(options?: ModuleOptions): Promise<Mha>;

/** Emscripten's module options; `wasmBinary` is filled in by the package. */
export interface ModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  [option: string]: unknown;
}

/** What createMha() resolves to. */
export interface Mha {
  Model: typeof Model;
  ModelBuilder: typeof ModelBuilder;
  Trainer: typeof Trainer;
  Gpt2Tokenizer: typeof Gpt2Tokenizer;
  Generator: typeof Generator;
  MhaError: typeof MhaError;
  /** The stages of one attention layer, in walk order: `stageTable.stagesOf.single`. */
  readonly STAGES: readonly StageId[];
  /** The core's one table of stages and tensors. */
  readonly stageTable: StageTable;
  /** Every default, limit, recipe, head metric and error code the core declares (cpp/core/catalog.h). */
  readonly catalog: Catalog;
  /** The layout a safetensors file's tensor names imply. bytes: the whole file, or its first 8 + N bytes with fileSize the whole file's. */
  guessLayout(bytes: Bytes, fileSize?: number, options?: { name?: string }): Layout;
  /** WebAssembly memory held by the module, in bytes. It only grows, so this is also the peak. */
  memoryBytes(): number;
  /** The bytes a KV cache takes: 2 × layers × kvHeads × dHead × bytesPerValue (default 4, float32) × tokens. */
  kvCacheBytes(size: { layers: number; kvHeads: number; dHead: number; bytesPerValue?: number; tokens: number }): number;
}

// ---------- words the API uses ----------

/** Bytes of a file (safetensors, encoder.json, …). */
export type Bytes = Uint8Array | ArrayBuffer;
/** The stages of the core's table (cpp/core/model/stages.cpp), every kind of model's. */
export type StageId =
  | 'tokenize' | 'embed' | 'ln_1' | 'project' | 'split' | 'rope' | 'attend' | 'concat' | 'output'
  | 'residual' | 'ln_2' | 'mlp' | 'mlp_residual' | 'ln_f' | 'logits' | 'predict';
export type StageFamily = 'input' | 'block' | 'qkv' | 'attend' | 'output' | 'head';
/** single: one attention layer; attn-only: blocks of attention only (the trained model); gpt2: GPT-2 blocks. */
export type ModelKind = 'single' | 'attn-only' | 'gpt2';
/** Tensor names of one attention layer's weights (y = x·Wᵀ + b). */
export type WeightName = 'w_q' | 'b_q' | 'w_k' | 'b_k' | 'w_v' | 'b_v' | 'w_o' | 'b_o';
/** One attention layer's weights: PyTorch nn.MultiheadAttention, Llama or GPT-2 names. */
export type LayerLayout = 'pytorch' | 'llama' | 'gpt2';
/** A whole model's layout. */
export type ModelLayout = 'gpt2' | 'attn-only';
export type Layout = LayerLayout | ModelLayout;
/** Heads switched off: [layer, head] pairs whose head_out is zeroed before the concat. */
export type HeadList = ReadonlyArray<readonly [layer: number, head: number]>;
/** Token ids, taken as given. */
export type Ids = Int32Array | readonly number[];

export interface StageTable {
  stages: Array<{ id: StageId; family: StageFamily; perLayer: boolean }>;
  /** shape: an expression such as '(1, heads, T, T)'; formula: how it is made, in words;
   *  forBackward: kept for the backward pass (LayerNorm's statistics), not drawn. */
  tensors: Array<{ name: string; stage: StageId; shape: string; formula: string; forBackward?: true }>;
  /** The stages each kind of model walks, in order. */
  stagesOf: Record<ModelKind, StageId[]>;
}

/** What the core declares, once: read these rather than repeating a value. */
export interface Catalog {
  /** batch, repeatLength (the longest L) and trainingMegabytes (the memory a run may imply) bound a Trainer. */
  limits: {
    dModel: number; heads: number; tokens: number; textBytes: number; textTokens: number; layers: number; vocabSize: number;
    batch: number; repeatLength: number; trainingMegabytes: number; readouts: number;
  };
  /** A model's settings when none is given. */
  defaults: Required<ModelOptions>;
  /** Llama's rope_theta when a file does not say. */
  ropeBase: number;
  /** d_head of every GPT-2 size: a gpt2 checkpoint that does not say its heads gets d_model / gpt2DHead. */
  gpt2DHead: number;
  presets: ModelKind[];
  /** The weight layouts a file may be read in (`layout` of loadWeights and of the page's weights):
   *  wholeModel, the preset a whole-model file in it reads as (null: one attention layer only); rope:
   *  its attention has rotary position embeddings. */
  layouts: Array<{ name: string; wholeModel: ModelKind | null; rope: boolean }>;
  /** The recipes of the page's "Train it yourself", by name (the core's kPageRecipes: induction, the shipped
   *  model's, `mha train`'s defaults; recall, `mha train --task recall`'s; smaller ones the page trains), each
   *  typed by its task. The npm package's copy lists them name by name: scripts/package.js writes this line
   *  from the catalog, so a new recipe needs no edit here. */
  recipes: { [name: string]: Recipe };
  /** The head counts `mha sweep` trains the recall recipe at. */
  sweepHeads: number[];
  /** The induction score that marks the phase change. */
  phaseChangeScore: number;
  /** Steps between the checks for it: the phase change is the first multiple of this where the score reaches phaseChangeScore. */
  phaseChangeEvery: number;
  /** fraction: a share of the attention, 0 … 1 (distances are in tokens); gradient: the gradient pass computes it (Model.headImportance), a run's headAnalysis() has it null. */
  headMetrics: Array<{ id: string; fraction: boolean; abbreviation: string; gradient: boolean;
    /** the analysis has `{id}_chance` beside it: the metric under uniform attention */ chance: boolean;
    /** reads what a model's own vocabulary says of its tokens: null for other models */ vocabulary: boolean }>;
  /** Head importance and pruning: how many sequences of the model's task they average over when asked for none, their seed, the most allowed. */
  importance: { samples: number; seed: number; maxSamples: number };
  /** timesChance: the metric must also reach this multiple of its chance (0: no such condition). */
  labelRules: Array<{ label: HeadLabel; metric: string; atLeast: number; timesChance: number }>;
  /** Every error a caller can meet: MhaError.code, and its English sentence with {names} for MhaError.params. */
  errorCodes: Array<{ code: string; english: string }>;
  /** The stage table (also mha.stageTable). */
  stageTable: StageTable;
  /** Generation's defaults (greedy, with the KV cache) and the highest temperature. */
  generate: { defaults: Required<Omit<GenerateOptions, 'switchedOff'>>; maxTemperature: number };
  /** Published models' attention sizes, for the size of their KV cache. */
  kvCache: { published: PublishedAttention[] };
  /** Every option each part of the API takes, in the order it applies them: a key not listed is an MhaError naming it. */
  options: {
    model: OptionRow[];
    /** A Trainer's: its own (task first), then the model's its task does not set; defaults from the induction recipe. */
    trainer: OptionRow[];
    run: OptionRow[];
    generate: OptionRow[];
    attribute: OptionRow[];
    taskSamples: OptionRow[];
  };
}

/** One option (cpp/core/options.h): its key, kind and limits, its default and what it means. */
export interface OptionRow {
  key: string;
  /** whole: a whole number in [min, max]; number: a number in [min, max]; positive: above 0, at most max;
   *  fraction: from 0 up to, not including, 1; choice: one of choices; heads: a HeadList. */
  type: 'whole' | 'number' | 'positive' | 'fraction' | 'boolean' | 'choice' | 'heads';
  min?: number;
  max?: number;
  choices?: string[];
  /** A Trainer's option only this task reads (giving it to the other task's Trainer is an error). */
  task?: 'induction' | 'recall';
  /** What a missing key takes (none for heads). */
  default?: number | boolean | string;
  help: string;
}

/** A published model's attention: layers, heads, key/value heads (grouped-query when fewer) and d_head. */
export interface PublishedAttention {
  id: string;
  name: string;
  layers: number;
  heads: number;
  kvHeads: number;
  dHead: number;
  /** The Hugging Face repository whose config.json publishes the numbers. */
  repo: string;
}

/** What every training recipe says: the options a Trainer takes (catalog.options.trainer, those of its task), and what
 *  follows from them and is not an option: causal, maxPositions and readouts (the task sets them), steps, lossFloor. */
interface RecipeBase {
  model: Exclude<ModelKind, 'single'>;
  layers: number;
  heads: number;
  dModel: number;
  vocabSize: number;
  seed: number;
  batch: number;
  lr: number;
  initStd: number;
  kvHeads: number;
  causal: boolean;
  maxPositions: number;
  /** Tokens predicted per position: 1, or the recall task's K. */
  readouts: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** How many steps it trains (and its learning rate's schedule spans). */
  steps: number;
  /** Steps over which the learning rate rises from 0. */
  warmup: number;
  /** The last step's share of the learning rate (1: constant). */
  finalLr: number;
  /** The lowest mean loss the task allows (0 for recall; for induction, about half its start). */
  lossFloor: number;
}
export interface InductionRecipe extends RecipeBase {
  task: 'induction';
  minLength: number;
  maxLength: number;
}
export interface RecallRecipe extends RecipeBase {
  task: 'recall';
  /** K: readout k predicts the id k places back. */
  recall: number;
  /** Ids per sequence. */
  length: number;
}
export interface CorpusRecipe extends RecipeBase {
  task: 'corpus';
  /** The text it trains on: a Trainer's second argument, {vocabulary, train, heldout?}. */
  corpus: 'tang' | 'brown';
  /** Tokens per training window. */
  window: number;
}
/** A training recipe, as a Trainer takes it. */
export type Recipe = InductionRecipe | RecallRecipe | CorpusRecipe;

/** Settings of a model; missing keys take the defaults (a single layer, d_model 512, 8 heads). */
export interface ModelOptions {
  model?: ModelKind;
  layers?: number;
  dModel?: number;
  heads?: number;
  /** Divides heads: grouped-query attention (1: multi-query). */
  kvHeads?: number;
  causal?: boolean;
  /** The random weights' seed, 0 or more. */
  seed?: number;
  vocabSize?: number;
  maxPositions?: number;
  /** Tokens predicted per position (attn-only): 1, or K for the recall task. */
  readouts?: number;
}

/** A model's settings as they are. */
export interface ModelConfig {
  model: ModelKind;
  layers: number;
  dModel: number;
  heads: number;
  kvHeads: number;
  dHead: number;
  causal: boolean;
  seed: number;
  vocabSize: number;
  maxPositions: number;
  /** Tokens predicted per position: 1, or the recall task's K (logits and probs are then (1, T, K, vocab)). */
  readouts: number;
  /** How many numbers its parameters hold: equal for every head count of one d_model. */
  parameters: number;
  layerNorm: boolean;
  mlp: boolean;
  /** RoPE's base (Llama weights), 0 without RoPE. */
  ropeBase: number;
  /** The stages this model walks (loaded Llama weights add rope). */
  stages: StageId[];
}

/** What a model is (Model.config; a Trace's config has only ModelConfig's keys). */
export interface ModelFacts {
  /** Drawn from the seed, or read from a file (or trained). */
  weights: 'seeded' | 'loaded';
  /** The file's layout; '' when seeded. */
  layout: Layout | '';
  /** The task its file says it was trained on ('corpus': the next token of real text); else ''. */
  task: 'induction' | 'recall' | 'corpus' | '';
  /** How text becomes ids ('chars', 'words': the model's own vocabulary, <unk> id 0); '' when the model has no tokenizer and reads ids only. */
  tokenizer: 'hashed' | 'first-appearance' | 'bpe' | 'chars' | 'words' | '';
  /** Seeded rows × √d_model (a single layer's), or a table's rows. */
  tokenTable: 'scaled' | 'table';
  positions: 'sinusoidal' | 'table';
  /** The attention adds b_Q, b_K, b_V, b_O (Llama's has none). */
  biases: boolean;
  /** Where the heads came from: a setting, config.json's n_head, the file's __metadata__, or d_model / 64 (GPT-2). */
  headsFrom: 'given' | 'config.json' | 'metadata' | 'gpt2-d-head';
}

export interface RunOptions {
  switchedOff?: HeadList;
}

export interface LoadModelOptions {
  /** Guessed from the tensor names when left out (or ''). */
  layout?: ModelLayout | '';
  /** 0 or left out: config.json's n_head, else the file's __metadata__, else d_model / 64 for gpt2. */
  heads?: number;
  /** The file's name, which errors about the file then say ('the file' when left out). */
  name?: string;
  /** Hugging Face's config.json beside the checkpoint (its text or bytes): n_head, and sizes checked against the file. */
  config?: string | Uint8Array | ArrayBuffer;
}

/** A training run; missing keys take the task's recipe (catalog.recipes: `mha train`'s defaults, 2 layers, 4 heads, d_model 64). */
export interface TrainerOptions {
  /** induction (the default), recall or corpus (real text, given as the Trainer's second argument); missing keys take that task's recipe. */
  task?: 'induction' | 'recall' | 'corpus';
  model?: Exclude<ModelKind, 'single'>;
  layers?: number;
  heads?: number;
  /** Divides heads: grouped-query attention (1: multi-query). */
  kvHeads?: number;
  dModel?: number;
  vocabSize?: number;
  seed?: number;
  batch?: number;
  /** Adam's learning rate, above 0 and at most 1. */
  lr?: number;
  /** Adam's β1 and β2, from 0 up to, not including, 1. */
  beta1?: number;
  beta2?: number;
  /** Adam's ε, above 0 and at most 1. */
  eps?: number;
  /** AdamW's decoupled weight decay, 0 … 1 (0: plain Adam). */
  weightDecay?: number;
  initStd?: number;
  /** The steps the learning rate's schedule spans. */
  steps?: number;
  /** Steps over which the learning rate rises from 0. */
  warmup?: number;
  /** The last step's share of the learning rate, above 0 and at most 1 (1: constant after the warm-up). */
  finalLr?: number;
  minLength?: number;
  maxLength?: number;
  /** The recall task's K. */
  recall?: number;
  /** The recall task's ids per sequence. */
  length?: number;
  /** The corpus task's text: the Tang poems by character, or the Brown corpus by word. */
  corpus?: 'tang' | 'brown';
  /** The corpus task's T: the tokens of each window it predicts from. */
  window?: number;
}

/** The corpus task's text: the contents of the files `npm run corpus` writes ({corpus}.vocab.json, .train.txt, .heldout.txt). */
export interface TrainerText {
  vocabulary: string;
  train: string;
  heldout?: string;
}

/** A corpus model on its held-out text, as `mha train` reports it. */
export interface HeldoutScores {
  /** The mean cross-entropy over the targets that are not <unk>. */
  loss: number;
  /** How often its first choice is that target. */
  accuracy: number;
  targets: number;
  windows: number;
}

/** Which logit Trace.attribute splits: a position (-1 or left out: the last) and a token (-1 or left out: its first choice there). */
export interface AttributeOptions {
  position?: number;
  token?: number;
}

/** A recall model on fresh sequences (the ones `mha sweep` scores on). */
export interface RecallScores {
  /** The mean cross-entropy over every counted readout. */
  loss: number;
  /** Per readout k = 1 … K: how often its first choice is the id k places back. */
  accuracy: number[];
  meanAccuracy: number;
  /** Per head, per k: its mean weight on position i − k. */
  stripe: number[][];
}

/** What each head does, measured in the core (cpp/core/analysis/head_metrics.h); null where a metric has no row to stand on. */
export interface HeadAnalysis {
  /** The label rules in the order they are tried; a head none reaches is 'mixed'. */
  labels: Array<{ label: HeadLabel; metric: string; at_least: number; times_chance: number }>;
  layers: Array<{ heads: HeadMetrics[]; similarity: Array<Array<number | null>> }>;
}
export type HeadLabel = 'previous_token' | 'induction' | 'parallel_line' | 'noun_article' | 'verb_subject' | 'noun_adjective' |
  'rare_word' | 'self' | 'first_token' | 'positional' | 'broad' | 'mixed';
export interface HeadMetrics {
  entropy: number | null;
  self: number | null;
  previous_token: number | null;
  first_token: number | null;
  locality: number | null;
  distance: number | null;
  distance_normalised: number | null;
  induction: number | null;
  duplicate_token: number | null;
  /** The d (1 … T/2) of the diagonal stripe a[i][i − d] with the largest mean: how far back it looks. */
  offset: number | null;
  /** That stripe's mean weight. */
  offset_weight: number | null;
  /** From the gradient pass (Model.headImportance): |∂L/∂ξ| of the head's gate at ξ = 1; null in a run's analysis. */
  importance: number | null;
  /** importance divided by the ℓ2 norm of its layer's importances. */
  importance_normalised: number | null;
  /** The head types of real text (cpp/core/analysis/head_types.h), null for a model without its own vocabulary. */
  parallel_line: number | null;
  rare_word: number | null;
  noun_article: number | null;
  noun_adjective: number | null;
  verb_subject: number | null;
  /** Each typed measure under uniform attention over the same rows. */
  previous_token_chance: number | null;
  induction_chance: number | null;
  first_token_chance: number | null;
  self_chance: number | null;
  offset_weight_chance: number | null;
  parallel_line_chance: number | null;
  rare_word_chance: number | null;
  noun_article_chance: number | null;
  noun_adjective_chance: number | null;
  verb_subject_chance: number | null;
  /** Mean weight on i − k, k = 0 … 16 (those < T). */
  offset_profile: number[];
  label: HeadLabel;
  /** The type it is most like, named or not: of the label rules whose metric has a chance, the one whose measure is the greatest multiple of it; null where none is measured. */
  strongest: HeadLabel | null;
  /** What its name rests on, as the heads table writes it: its label rule's metric (a mixed head's: that of the type it is nearest), that metric's value and its chance (null where it has none); null for a mixed head near no type. */
  measure: { type: HeadLabel; metric: string; value: number | null; chance: number | null } | null;
  /** The cells [row, key] its label's measure reads on this text (the i − 1 stripe, the article a noun reads, …); none for broad and mixed, or a mean over texts. */
  cells: Array<[number, number]>;
}

/** One logit split into what wrote it into the residual stream (Trace.attribute); the parts sum to the logit. */
export interface LogitAttribution {
  position: number;
  token: number;
  logit: number;
  /** The embedding's direct path, every head (layer by layer), every MLP (GPT-2), the biases. */
  parts: LogitPart[];
}
/** Trace.attributions(): values[i · parts.length + j] is part j of position i's logit (of tokens[i], its first choice). */
export interface Attributions {
  positions: number;
  tokens: Int32Array;
  logits: Float64Array;
  parts: Array<Omit<LogitPart, 'value'>>;
  values: Float64Array;
}
export interface LogitPart {
  kind: 'embedding' | 'head' | 'mlp' | 'bias';
  /** A head's or an MLP's layer. */
  layer?: number;
  head?: number;
  value: number;
}

/** Each head's importance (Model.headImportance), layer by layer. */
export interface HeadImportance {
  layers: Array<{ heads: Array<{ importance: number; importance_normalised: number }> }>;
}

/** Sequences of the model's task: how many (catalog.importance.samples when left out) and their seed. */
export interface TaskSampleOptions {
  samples?: number;
  seed?: number;
}

/** What Model.patch takes: the clean and corrupted inputs (texts or ids, as many tokens) and the metric's tokens (-1 or left out: the clean run's first choice, the corrupted run's). */
export interface PatchOptions {
  clean?: string | Ids;
  corrupt?: string | Ids;
  answer?: number;
  wrong?: number;
}

/** Circuits from the weights (Model.circuits): ‖W_OV^A R‖_F / (‖W_OV^A‖_F ‖R‖_F) of every head A into every head B of a later layer, R = W_QK^B (Q), W_QK^Bᵀ (K), W_OV^B (V); copying: Σ Re λ / Σ |λ| of W_E W_OV W_U. */
export interface Circuits {
  copying: Array<{ layer: number; head: number; score: number }>;
  composition: Array<{ mode: 'Q' | 'K' | 'V'; from: [layer: number, head: number]; to: [layer: number, head: number]; score: number }>;
  /** The mean score of pairs of Gaussian heads of the model's shapes, about 1/√d_model. */
  baseline: { Q: number; K: number; V: number };
}

/** One head's tables over a text (Model.headCircuit): tokens are its ids, each once, in order of first appearance. */
export interface HeadCircuit {
  layer: number;
  head: number;
  tokens: number[];
  /** W_pos W_QK W_posᵀ: row the query position, column the key position (T × T). */
  qk_positional: number[][];
  /** W_E W_QK W_Eᵀ over tokens: row the query token, column the key token. */
  qk_token: number[][];
  /** W_E W_OV W_U over tokens: row the token attended to, column the token raised. */
  ov: number[][];
  /** Per row of ov, the ids of the whole vocabulary it raises most, with their values. */
  ov_top: Array<Array<[id: number, value: number]>>;
}

/** Activation patching (Model.patch): m = logit[answer] − logit[wrong] at the last position, recovery = (m_patched − m_corrupt) / (m_clean − m_corrupt). */
export interface PatchResult {
  answer: number;
  wrong: number;
  m_clean: number;
  m_corrupt: number;
  heads: Array<{ layer: number; head: number; recovery: number }>;
  /** The residual stream entering block `layer`, one position patched. */
  residual: Array<{ layer: number; position: number; recovery: number }>;
}

/** The pruning curve (Model.prune): the first step removes no head, each next one more, the last all; in ascending importance on the same sequences. */
export interface PruneCurve {
  importance: HeadImportance;
  steps: Array<{ removed: Array<[layer: number, head: number]>; loss: number; accuracy: number }>;
}

/** A generation's settings; missing keys take catalog.generate.defaults. switchedOff: as a run's. */
export interface GenerateOptions extends RunOptions {
  /** New tokens, 1 or more; the prompt plus them must fit the model's positions. */
  tokens?: number;
  /** 0 (greedy: the likeliest token) … catalog.generate.maxTemperature: sample softmax(logits / temperature). */
  temperature?: number;
  /** 0: no cut; else sample only among the k likeliest ids. */
  topK?: number;
  /** 0 … 1; 1: no cut; else only the fewest likeliest ids whose probabilities reach topP. */
  topP?: number;
  /** The draws' seed: the same seed, the same continuation (natively too). */
  seed?: number;
  /** false: run the whole sequence again at every step instead of reading the KV cache (same ids and logits). */
  cache?: boolean;
  /** Candidates each step lists. */
  top?: number;
}

/** One step of a generation. */
export interface GenerationStep {
  id: number;
  /** Its text: as it was in the text, else the tokenizer's, else '#id'. */
  token: string;
  /** Its probability in the distribution it was drawn from (greedy: the model's softmax; sampled: after temperature, top-k, top-p, renormalised). */
  p: number;
  sampled: boolean;
  /** How many ids that distribution kept (the vocabulary unless top-k or top-p cut it). */
  kept: number;
  /** The likeliest ids, best first, with their probability in that distribution (0 where the cut removed them). */
  top: Array<[id: number, p: number]>;
  /** The same ids' probabilities before top-k and top-p: softmax(logits / temperature). */
  before: number[];
  /** The text so far: the prompt's, with each new token joined as the tokenizer reads it back ('' from ids). */
  text: string;
}

/** What the KV cache holds: positions and their bytes (float32). */
export interface KvCacheSize {
  tokens: number;
  bytes: number;
}

/** A whole generation. */
export interface Generation {
  /** The prompt, then every new id. */
  ids: Int32Array;
  new: Int32Array;
  text: string;
  steps: GenerationStep[];
  /** null with {cache: false}. */
  cache: KvCacheSize | null;
}

/** A tensor a ModelBuilder still needs: its byte range in the file. */
export interface NeededTensor {
  name: string;
  dtype: 'F32' | 'F16' | 'BF16';
  begin: number;
  end: number;
}

// ---------- the classes ----------

/** The core's error: its one-line English message, the same the CLI prints. */
export declare class MhaError extends Error {
  constructor(message: string, info?: { field?: string; code?: string; params?: Record<string, string> } | null);
  readonly name: 'MhaError';
  /** The setting or input it is about ('d_model', 'heads', 'kv_heads', 'seed', 'text', …), or null. */
  readonly field: string | null;
  /** A stable id such as 'd_model_not_divisible', or null. */
  readonly code: string | null;
  /** The numbers in the message, e.g. {d_model: '10', heads: '4'}. */
  readonly params: Record<string, string>;
}

/** Every stage tensor of one run. Arrays handed out are copies, valid after the model is gone. */
declare class Trace {
  private constructor();
  tokens(): string[];
  ids(): Int32Array;
  /** ['token_embedding', …, 'layers.0.q', …, 'logits', 'probs'] */
  names(): string[];
  /** The block a tensor belongs to (layers.{i}.*), or -1 for model-level tensors. */
  layer(name: string): number;
  config(): ModelConfig;
  headAnalysis(): HeadAnalysis | null;
  stage(name: string): StageId;
  /** e.g. [1, 4, 5, 5] for weights. */
  shape(name: string): number[];
  /** The values as a new Float32Array, or copied into `into` (exactly that many values) and returned. */
  data(name: string, into?: Float32Array): Float32Array;
  has(name: string): boolean;
  /** The tensors of one stage, in order: tensorsOf('attend') -> ['raw_scores', 'scores', 'weights', 'head_out']. */
  tensorsOf(stage: StageId): string[];
  /** One logit split into the embedding, each head, each MLP and the biases; by default the last position and its first choice. A model that predicts only. */
  attribute(options?: AttributeOptions): LogitAttribution;
  /** Every position's first choice split the same way, as arrays, in one call. */
  attributions(): Attributions;
  delete(): void;
}

/** One attention layer or a whole model. Every method that fails throws MhaError and leaves the model as it was. */
declare class Model {
  constructor(options?: ModelOptions);
  /** Changes settings in place; loaded or trained weights are kept (a setting their shapes forbid is an error). */
  configure(options: ModelOptions): this;
  /** Drops loaded weights for seeded random ones of the given settings. */
  useRandomWeights(options?: ModelOptions): this;
  /** A whole model from safetensors bytes. */
  loadModel(bytes: Bytes, options?: LoadModelOptions): this;
  /** The weights as a safetensors file, in the layout they would be loaded from. */
  modelFile(): Uint8Array;
  /** The tokenizer runText goes through, for a GPT-2 model. */
  setTokenizer(tokenizer: Gpt2Tokenizer): this;
  readonly isSeeded: boolean;
  /** One attention layer's weights. */
  loadWeights(bytes: Bytes, layout?: LayerLayout, layer?: number, options?: { name?: string }): this;
  runText(text: string, options?: RunOptions): Trace;
  runIds(ids: Ids, options?: RunOptions): Trace;
  /** x: T × d_model values, row by row. into: a Trace of this model's to refill in place (nothing allocated for the same T). */
  runInput(x: Float32Array | readonly number[], T: number, options?: { into?: Trace }): Trace;
  /** Each head's importance over a text or ids (the mean next-token cross-entropy's |∂L/∂ξ| at ξ = 1), or, given samples, over that many sequences of the model's task. A model that predicts only. */
  headImportance(input: string | Ids | null, options?: TaskSampleOptions): HeadImportance;
  /** The heads removed one at a time, least important first, with the loss and the task's accuracy after each. */
  prune(options?: TaskSampleOptions): PruneCurve;
  /** Every head's copying score and every composition score (Q, K, V) with the random heads' baseline, from the weights: `mha circuits --json`. A model of at least two layers of blocks. */
  circuits(): Circuits;
  /** One head's QK (positional and token) and OV tables over the tokens of a text or ids. */
  headCircuit(input: string | Ids, layer: number, head: number): HeadCircuit;
  /** Activation patching of the clean run into the corrupted one: each head's z and each residual row, how much of logit[answer] − logit[wrong] it brings back. */
  patch(options: PatchOptions): PatchResult;
  readonly config: ModelConfig & ModelFacts;
  /** The text of an id in the model's own vocabulary ('<unk>' for id 0 of 'chars' and 'words'); '' where its tokenizer has no texts of ids. */
  tokenText(id: number): string;
  /** One attention layer's weight. */
  weight(name: WeightName): { shape: number[]; data: Float32Array };
  /** A generation from a text (through the model's tokenizer) or ids, stepped by you; checked at once. Stops working once this model changes. */
  generator(prompt: string | Ids, options?: GenerateOptions): Generator;
  /** The same, all its steps at once. */
  generate(prompt: string | Ids, options?: GenerateOptions): Generation;
  delete(): void;
}

/** One generation: the prompt runs once, then each step runs its new token against the KV cache. */
declare class Generator {
  private constructor();
  /** Draws the next token and appends it; an MhaError once `tokens` have been made. */
  step(): GenerationStep;
  readonly done: boolean;
  /** The prompt, then every new id. */
  readonly ids: Int32Array;
  /** The text of each id: the prompt's tokens, then each step's token. */
  readonly tokens: string[];
  readonly promptLength: number;
  readonly text: string;
  /** null with {cache: false}. */
  readonly cache: KvCacheSize | null;
  delete(): void;
}

/** A whole model read a tensor at a time, for files too large to hold. */
declare class ModelBuilder {
  /** header: at least the file's first 8 + N bytes; fileSize: the whole file's. Checks the header at once. */
  constructor(header: Bytes, fileSize: number, options?: LoadModelOptions);
  /** The tensors to read, in file order, as byte offsets in the file. */
  readonly needed: NeededTensor[];
  /** The model's settings as they will be, and where its heads came from. */
  readonly config: ModelConfig & Pick<ModelFacts, 'headsFrom'>;
  /** The next bytes of tensor `name`; a tensor may come in pieces, in order. */
  add(name: string, bytes: Bytes): this;
  /** The built Model (yours to delete), once every needed tensor has come. */
  finish(): Model;
  delete(): void;
}

/** GPT-2's byte-level BPE: (encoder.json, vocab.bpe), (vocab.json, merges.txt), or (tokenizer.json). */
declare class Gpt2Tokenizer {
  constructor(vocabOrTokenizerJson: Bytes, merges?: Bytes, names?: { vocabName?: string; mergesName?: string });
  /** A token holding part of a character shows its bytes, as <0xE6>. */
  encode(text: string): { tokens: string[]; ids: Int32Array };
  readonly vocabSize: number;
  /** The text of one id, as encode() shows tokens ('' outside the vocabulary). */
  tokenText(id: number): string;
  delete(): void;
}

/** A training run of the induction, recall or corpus task, the same bits as `mha train`. */
declare class Trainer {
  /** text: the corpus task's (and only its). */
  constructor(options?: TrainerOptions, text?: TrainerText);
  /** Runs `count` steps (1 or more); returns their losses. */
  step(count?: number): Float32Array;
  readonly stepsDone: number;
  /** The best last-layer head's induction score, averaged over lengths; passes 0.7 at the phase change. */
  inductionScore(sequences?: number): number;
  /** The recall task: the current weights scored on the fresh sequences `mha sweep` uses (or the first `sequences` of them). */
  recallScores(sequences?: number): RecallScores;
  /** The corpus task: the current weights on the held-out text's first `windows` windows (0 or left out: all). */
  heldoutScores(windows?: number): HeldoutScores;
  /** The corpus task: every head measured on those windows with the corpus's vocabulary (the mean of their analyses, as `mha heads --heldout`). */
  heldoutHeads(windows?: number): HeadAnalysis;
  /** The model it trains. */
  readonly config: ModelConfig;
  /** The weights now, as safetensors bytes (loadable by Model.loadModel). */
  modelFile(): Uint8Array;
  /** A run of the current weights. */
  runIds(ids: Ids): Trace;
  delete(): void;
}

export type { Trace, Model, ModelBuilder, Gpt2Tokenizer, Trainer, Generator };
