// Types of the JavaScript API (web/mha.js), as the README's "In your own JavaScript" documents it.
// Written by hand; tests/node/package.test.js checks them against the running module (every member of
// createMha()'s result and every public method of each class below must be declared here, and
// nothing more) and compiles a usage file with `tsc --strict`.
//
// Where things go: a new method of Model, Trace, ModelBuilder, Trainer, Gpt2Tokenizer or Generator goes into
// its class below; a new member of what createMha() resolves to goes into `Mha`; a new option into
// its `…Options` interface. Shapes are written (1, T, d_model), (1, heads, T, d_head) as in the README.
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
  guessLayout(bytes: Bytes, fileSize?: number): Layout;
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
  limits: { dModel: number; heads: number; tokens: number; textBytes: number; textTokens: number; layers: number; vocabSize: number };
  /** A model's settings when none is given. */
  defaults: Required<ModelOptions>;
  /** Llama's rope_theta when a file does not say. */
  ropeBase: number;
  presets: ModelKind[];
  /** induction: the shipped model's recipe (`mha train`'s defaults); inductionSmall: a phone's. */
  recipes: { induction: Recipe; inductionSmall: Recipe };
  /** The induction score that marks the phase change. */
  phaseChangeScore: number;
  /** column: the heads panel shows it in a column. */
  headMetrics: Array<{ id: string; column: boolean; abbreviation: string }>;
  labelRules: Array<{ label: HeadLabel; metric: string; atLeast: number }>;
  /** Every error a caller can meet: MhaError.code, and its English sentence with {names} for MhaError.params. */
  errorCodes: Array<{ code: string; english: string }>;
  /** The stage table (also mha.stageTable). */
  stageTable: StageTable;
  /** Generation's defaults (greedy, with the KV cache) and the highest temperature. */
  generate: { defaults: Required<Omit<GenerateOptions, 'cache' | 'switchedOff'>>; maxTemperature: number };
  /** Published models' attention sizes, for the size of their KV cache. */
  kvCache: { published: PublishedAttention[] };
}

/** A published model's attention: layers, heads, key/value heads (grouped-query when fewer) and d_head. */
export interface PublishedAttention {
  id: string;
  name: string;
  layers: number;
  heads: number;
  kvHeads: number;
  dHead: number;
  /** Where the numbers are published. */
  source: string;
}

/** A training recipe, as a Trainer takes it. */
export type Recipe = Required<TrainerOptions> & {
  kvHeads: number;
  causal: boolean;
  maxPositions: number;
  task: 'induction';
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** How many steps it trains. */
  steps: number;
};

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
  layerNorm: boolean;
  mlp: boolean;
  /** RoPE's base (Llama weights), 0 without RoPE. */
  ropeBase: number;
  /** The stages this model walks (loaded Llama weights add rope). */
  stages: StageId[];
}

export interface RunOptions {
  switchedOff?: HeadList;
}

export interface LoadModelOptions {
  /** Guessed from the tensor names when left out (or ''). */
  layout?: ModelLayout | '';
  /** 0 or left out: the file's __metadata__. */
  heads?: number;
}

/** The induction task's training run; missing keys take `mha train`'s defaults (2 layers, 4 heads, d_model 64). */
export interface TrainerOptions {
  model?: Exclude<ModelKind, 'single'>;
  layers?: number;
  heads?: number;
  dModel?: number;
  vocabSize?: number;
  seed?: number;
  batch?: number;
  lr?: number;
  initStd?: number;
  minLength?: number;
  maxLength?: number;
}

/** What each head does, measured in the core (cpp/core/analysis/head_metrics.h); null where a metric has no row to stand on. */
export interface HeadAnalysis {
  /** The label rules in the order they are tried; a head none reaches is 'mixed'. */
  labels: Array<{ label: HeadLabel; metric: string; at_least: number }>;
  layers: Array<{ heads: HeadMetrics[]; similarity: Array<Array<number | null>> }>;
}
export type HeadLabel = 'previous_token' | 'induction' | 'self' | 'first_token' | 'broad' | 'mixed';
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
  label: HeadLabel;
}

/** A generation's settings; missing keys take catalog.generate.defaults. */
export interface GenerateOptions {
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
  switchedOff?: HeadList;
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
  loadWeights(bytes: Bytes, layout?: LayerLayout, layer?: number): this;
  runText(text: string, options?: RunOptions): Trace;
  runIds(ids: Ids, options?: RunOptions): Trace;
  /** x: T × d_model values, row by row. into: a Trace of this model's to refill in place (nothing allocated for the same T). */
  runInput(x: Float32Array | readonly number[], T: number, options?: { into?: Trace }): Trace;
  readonly config: ModelConfig;
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
  /** The model's settings as they will be. */
  readonly config: ModelConfig;
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

/** A training run of the induction task, the same bits as `mha train`. */
declare class Trainer {
  constructor(options?: TrainerOptions);
  /** Runs `count` steps (1 or more); returns their losses. */
  step(count?: number): Float32Array;
  readonly stepsDone: number;
  /** The best last-layer head's induction score, averaged over lengths; passes 0.7 at the phase change. */
  inductionScore(sequences?: number): number;
  /** The weights now, as safetensors bytes (loadable by Model.loadModel). */
  modelFile(): Uint8Array;
  /** A run of the current weights. */
  runIds(ids: Ids): Trace;
  delete(): void;
}

export type { Trace, Model, ModelBuilder, Gpt2Tokenizer, Trainer, Generator };
