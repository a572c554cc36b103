// Types of <mha-demo> (web/src/element.js), the element dist/mha-demo.js defines, as the README's
// "Embed it" documents it. Written by hand; tests/node/package.test.js checks them against the
// element in Chromium (every public member declared, every attribute it observes) and compiles a
// usage file with `tsc --strict`.
//
// Bring them in with `import 'mha-demo/element'` (a bundler also bundles the script) or, for a page
// that loads the script with a <script> tag, `/// <reference types="mha-demo/element" />`. Then
// document.querySelector('mha-demo') is an MhaDemoElement and its events carry typed details.
//
// Where things go: a new attribute into MhaDemoAttributes; a new method or property into
// MhaDemoElement; a new event into MhaDemoEventMap (its detail as an interface beside the others).

import type { Catalog, Attributions, GenerationStep, HeadAnalysis, HeadImportance, HeadLabel, LayerLayout, Layout, ModelConfig, ModelFacts, PruneCurve, StageId } from './mha';

export {};

// ---------- attributes ----------

type Whole = `${number}`;

/** The attributes <mha-demo> reads (all strings, as in HTML); see the README's table for defaults. */
export interface MhaDemoAttributes {
  /** tang, brown: the 4-layer models this project trained on real text (Tang poems, a character per token;
   * the Brown corpus's English words); trained: its 2-layer model of induction heads; recall: its 1-layer
   * model of the recall task (4 heads); random: one attention layer of seeded weights; blocks: two
   * GPT-2-style blocks of seeded weights; or the URL of a whole model's .safetensors (needs http). */
  model: 'tang' | 'brown' | 'trained' | 'recall' | 'random' | 'blocks' | `${string}.safetensors` | `${string}.safetensors?${string}`;
  /** The sentence: up to 4096 bytes / 512 tokens (the trained model reads at most 60 tokens). */
  text: string;
  /** Token ids separated by spaces or commas, for a model without a tokenizer (a GPT-2 checkpoint
   * opened without its tokenizer files); '0 1 2 3 4 5 6 7' until given. */
  ids: string;
  /** The layer whose attention is shown (a model of blocks). */
  'view-layer': Whole;
  /** Heads switched off, `layer.head,…` such as '1.0,1.3'. */
  ablate: string;
  /** Divisible by heads. */
  'd-model': Whole;
  /** Random weights' heads; for a whole model from a file, its heads (left out: config.json's, the
   * file's, or d_model / 64 for GPT-2). */
  heads: Whole;
  /** Divides heads (grouped-query / multi-query attention). */
  'kv-heads': Whole;
  /** A boolean attribute: present is on, except 'false', '0', 'off' or 'no'. */
  causal: string;
  /** The random weights' seed, 0 or more. */
  seed: Whole;
  /** One of the model's stages. */
  stage: StageId;
  /** The head enlarged at the attend stage, 0 … heads − 1. */
  head: Whole;
  show: 'weights' | 'scores' | 'raw';
  lang: 'en' | 'zh' | `en-${string}` | `zh-${string}`;
  controls: 'full' | 'minimal' | 'none';
  /** One attention layer's weights: a safetensors URL (fetched: needs http), its layout and layer. */
  weights: string;
  layout: LayerLayout;
  layer: Whole;
  /** The name of a model file the learner opened (the permalink names it and asks for it again). */
  file: string;
  /** The text is continued by this many tokens, drawn again with the sampling attributes below (a link reproduces the continuation). */
  generate: Whole;
  /** 0 (greedy, the default) … 10: sample softmax(logits / temperature). */
  temperature: `${number}`;
  /** 0 (no cut) or the k likeliest tokens. */
  'top-k': Whole;
  /** 0 … 1 (1: no cut): the fewest likeliest tokens whose probabilities reach it. */
  'top-p': `${number}`;
  /** The draws' seed (not the random weights'). */
  'sample-seed': Whole;
}
export type MhaDemoAttributeName = keyof MhaDemoAttributes;

// ---------- events ----------

export interface StageChangeDetail {
  stage: StageId;
}
export interface MhaDemoErrorDetail {
  /** The message the demo shows (English). */
  message: string;
  /** The attribute it is about ('heads', 'text', 'model', …). */
  attribute: string;
}
export interface TrainProgressDetail {
  /** The task of the recipe it trains. */
  task: 'induction' | 'recall' | 'corpus';
  step: number;
  /** The last step's loss, null before the first. */
  loss: number | null;
  stepsPerSecond: number;
  /** The mean induction score of the best last-layer head; passes 0.7 at the phase change. */
  induction: number;
  /** The recall task: mean accuracy of the readouts on a few fresh sequences; null for the induction task. */
  accuracy: number | null;
  /** The corpus task: the loss on the first windows of its held-out text, null before the first step and for the other tasks. */
  heldout: number | null;
  /** The step where it first passed 0.7, or null. */
  phaseStep: number | null;
  /** offset: a recall model's head, how far back it looks (null for the induction task). */
  heads: Array<{ layer: number; head: number; previousToken: number | null; induction: number | null; offset: number | null; label: HeadLabel }>;
  /**
   * Each head's type as the heads table shows it, on the current text: its label, the measure the
   * name rests on and that measure's chance (null where it has none); a mixed head's measure is that
   * of the type it is `nearest` (null near none); `offset`, a positional head's i − k.
   */
  headTypes: Array<{ layer: number; head: number; type: HeadLabel; nearest: HeadLabel | null; value: number | null; chance: number | null; offset: number | null }>;
  /**
   * The corpus task: the same on the first windows of its held-out text, as last measured (with
   * `heldout`, at most once a second); null before the first measure and for the other tasks.
   */
  heldoutTypes: Array<{ layer: number; head: number; type: HeadLabel; nearest: HeadLabel | null; value: number | null; chance: number | null; offset: number | null }> | null;
}
export interface TrainEndDetail {
  step: number;
  loss: number | null;
  reason: 'paused' | 'done' | 'reset';
}

/** One head count of the sweep: the recall recipe trained at it and scored on fresh sequences. */
export interface SweepRow {
  heads: number;
  dHead: number;
  /** Equal for every head count: the heads split d_model. */
  parameters: number;
  loss: number;
  /** The mean over the readouts. */
  accuracy: number;
  /** Per readout k = 1 … K: how often its first choice is the id k places back. */
  perReadout: number[];
  /** Per head, per k: its mean weight on position i − k. */
  stripe: number[][];
  /** How long it trained here. */
  seconds: number;
}
export interface SweepProgressDetail {
  /** Which head count of the list (0 …) and how many there are. */
  index: number;
  total: number;
  heads: number;
  step: number;
  steps: number;
}
export interface SweepEndDetail {
  /** The head counts trained so far. */
  rows: SweepRow[];
  reason: 'done' | 'cancelled' | 'error';
}
/** el.runHeadSweep's options: head counts dividing d_model (default 1, 4, 64), steps and seed of the recall recipe. */
export interface HeadSweepOptions {
  heads?: number[];
  steps?: number;
  seed?: number;
}

/** Every event of <mha-demo> (they bubble and cross the shadow root), with the element's own. */
export interface MhaDemoEventMap extends Omit<HTMLElementEventMap, 'error'> {
  stagechange: CustomEvent<StageChangeDetail>;
  /** A new message about an attribute, the text or a file (not a script error). */
  error: CustomEvent<MhaDemoErrorDetail>;
  trainprogress: CustomEvent<TrainProgressDetail>;
  trainend: CustomEvent<TrainEndDetail>;
  sweepprogress: CustomEvent<SweepProgressDetail>;
  sweepend: CustomEvent<SweepEndDetail>;
}

// ---------- state ----------

/** What the demo runs on. */
export interface MhaDemoSettings {
  /** file: a model the learner opened (or model="….safetensors"). */
  model: 'tang' | 'brown' | 'trained' | 'recall' | 'random' | 'blocks' | 'file';
  text: string;
  /** The ids attribute (null: the sample), read by a model without a tokenizer. */
  ids: string | null;
  dModel: number;
  /** null for a file's own heads. */
  heads: number | null;
  kvHeads: number | null;
  causal: boolean;
  seed: number;
  layer: number | null;
  switchedOff: Array<[layer: number, head: number]>;
}

/** The last good run, as plain copied arrays. */
export interface MhaDemoResult {
  /** null when the model read token ids (it has no tokenizer). */
  text: string | null;
  tokens: string[];
  ids: number[];
  config: ModelConfig & ModelFacts;
  /** The layer shown. */
  layer: number;
  heads: HeadAnalysis | null;
  /** Every tensor of the run by its trace name (the layer shown's also under their single-layer names). */
  tensors: Record<string, { stage: StageId; shape: number[]; data: Float32Array }>;
  /** A model that predicts: every position's first choice split into what wrote it (Trace.attributions()). */
  attributions: Attributions | null;
}

/** el.state: one demo's store, read-only (set attributes or call methods to change it). */
export interface MhaDemoState {
  readonly lang: 'en' | 'zh';
  readonly stage: StageId;
  readonly settings: Readonly<MhaDemoSettings>;
  readonly result: MhaDemoResult | null;
  readonly status: 'loading' | 'loading-weights' | 'computing' | 'idle';
  readonly head: number;
  readonly attendMode: 'weights' | 'scores' | 'raw';
  readonly controls: 'full' | 'minimal' | 'none';
  /** The core could not be loaded: nothing else can be shown. */
  readonly fatal: string | null;
  /** A file being opened, in bytes. */
  readonly opening: { name: string; read: number; total: number } | null;
  /** A model or weights asked for that could not be had (a URL that failed, a file to open again, a
   * bad file): what it was asked by, and what the pictures show meanwhile. */
  readonly unavailable: { attribute: 'model' | 'weights' | 'file'; instead: 'kept' | 'seeded' | 'trained' | null } | null;
  /** The position whose prediction the predict stage splits into its parts; null: the last. */
  readonly position: number | null;
  /** The trained model's pruning curve, once computed (in a worker); {error} if it could not be. */
  readonly pruning: PruneCurve | { error: string } | null;
  /** A shipped model's head importance on the text it was last computed for (in a worker): the model and ids it is for. */
  readonly importance: (HeadImportance & { model: string; ids: number[] }) | null;
  /** Generate's settings; tokens: how many "Generate" draws. */
  readonly sampling: { temperature: number; topK: number; topP: number; seed: number; tokens: number };
  /** The continuation drawn last (shown while the text and the sampling settings are its own). */
  readonly generation: MhaDemoGeneration | null;
}

/** A continuation of the text, step by step (the core's steps, as Generator.step() gives them). */
export interface MhaDemoGeneration {
  /** The text it continued. */
  prompt: string;
  /** The text after its last step. */
  text: string;
  sampling: { temperature: number; topK: number; topP: number; seed: number };
  steps: GenerationStep[];
  /** Still drawing. */
  running: boolean;
  /** Why it could not draw (a prompt plus tokens past the model's positions, say), or null. */
  error: { message: string; code?: string; field?: string; params?: Record<string, string> } | string | null;
}

/** el.training: the training panel's run (trained model, full controls), or null where there is none. */
export interface MhaDemoTraining {
  task: 'induction' | 'recall';
  step: number;
  running: boolean;
  loss: number | null;
  stepsPerSecond: number;
  induction: number;
  accuracy: number | null;
  phaseStep: number | null;
  /** The steps whose head maps the panel keeps (its slider scrubs through them). */
  snapshots: number[];
}

/** What el.openFile resolves to. */
export interface OpenedFile {
  name: string;
  layout: Layout;
  /** model: a whole model, now shown; weights: one attention layer, now the random-weights mode's weights. */
  kind: 'model' | 'weights';
  /** GPT-2 tokenizer files came with it. */
  tokenizer: boolean;
}

// ---------- the element ----------

export interface MhaDemoElement extends HTMLElement {
  /** Resolves to the element when its first picture is drawn; rejects with the message it shows if the first run fails. */
  readonly ready: Promise<MhaDemoElement>;
  readonly state: MhaDemoState;
  /** The stages of the model shown, in order (null before the first run). */
  readonly stages: StageId[] | null;
  goTo(stage: StageId): void;
  next(): void;
  prev(): void;
  /** Keyboard focus to the current stage's title (a page's "skip to the current stage" link). */
  focusStage(): void;
  /** Starts or resumes training in a worker: the recipe of the model shown, or `task` (catalog.recipes' keys: 'tang' trains on the Tang poems). Throws on a key or task it does not take; resolves once started. */
  train(options?: { task?: keyof Catalog['recipes'] }): Promise<void>;
  pause(): void;
  /** Back to step 0, with this seed (else the next one). */
  resetTraining(seed?: number): void;
  readonly training: MhaDemoTraining | null;
  /** Trains the recall recipe at each head count (same d_model) in a worker; resolves to a row per head count, rejects when cancelled. */
  runHeadSweep(options?: HeadSweepOptions): Promise<SweepRow[]>;
  /** Stops a sweep in progress (its promise rejects with an AbortError). */
  cancelHeadSweep(): void;
  /** Opens a model (.safetensors) from a File or Blob with a name, or with GPT-2's tokenizer files beside it. */
  openFile(file: Blob | FileList | ArrayLike<Blob>): Promise<OpenedFile>;
  /** Stops a file that is still opening; the model shown stays. */
  cancelOpen(): void;
  /** Bytes of WebAssembly memory this demo's core holds (its peak); 0 before it loads. */
  readonly memoryBytes: number;
  /** Draws `count` tokens (default: state.sampling.tokens) after the text, one per frame, with the predict stage's sampling settings. */
  generate(count?: number): void;

  /** A known attribute takes its own values: setAttribute('heads', 'four') does not compile. */
  setAttribute<N extends string>(name: N, value: N extends MhaDemoAttributeName ? MhaDemoAttributes[N] : string): void;
  addEventListener<K extends keyof MhaDemoEventMap>(type: K, listener: (this: MhaDemoElement, ev: MhaDemoEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof MhaDemoEventMap>(type: K, listener: (this: MhaDemoElement, ev: MhaDemoEventMap[K]) => any, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'mha-demo': MhaDemoElement;
  }
  /** The element script also defines createMha() on the page: the whole module, as the package's Node entry (it loads mha-gradients.js from beside the script first). */
  var createMha: typeof import('./mha').createMha;
}
