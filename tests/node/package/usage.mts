// The README's "In your own JavaScript", as a TypeScript author writes it against the installed
// package (ES module). tests/node/package.test.js compiles it with tsc --strict; it is never run.
import createMha, { MhaError } from 'mha-demo';
import type { Attributions, Generation, GenerationStep, HeadAnalysis, HeadImportance, KvCacheSize, LogitAttribution, Mha, Model, ModelConfig, PruneCurve, StageId, Trace } from 'mha-demo';

declare const safetensors: Uint8Array;
declare const header: Uint8Array;
declare const fileSize: number;
declare const encoderJson: Uint8Array;
declare const vocabBpe: ArrayBuffer;

const mha: Mha = await createMha();

const model: Model = new mha.Model({ dModel: 64, heads: 4, kvHeads: 2, causal: false, seed: 1 });
model.loadWeights(safetensors, 'gpt2', 0);
const trace: Trace = model.runText('我是秦始皇');
const tokens: string[] = trace.tokens();
const shape: number[] = trace.shape('weights');
const weights: Float32Array = trace.data('weights');
trace.delete();
model.delete();

// Again and again into one trace and one array: nothing allocated.
const x = new Float32Array(5 * 64);
const again = model.runInput(x, 5);
const y = new Float32Array(5 * 64);
model.runInput(x, 5, { into: again });
again.data('y', y);

try {
  new mha.Model({ dModel: 10, heads: 4 });
} catch (e) {
  if (e instanceof mha.MhaError && e.field === 'heads') console.log(e.code, e.params.d_model, e.message);
  if (e instanceof MhaError) console.log(e.name);
}

// Whole models, head analysis, switching heads off.
const whole = new mha.Model();
whole.loadModel(safetensors);
whole.loadModel(safetensors, { layout: 'gpt2', heads: 12 });
const builder = new mha.ModelBuilder(header, fileSize);
for (const { name, begin, end } of builder.needed) builder.add(name, safetensors.subarray(begin, end));
const built: Model = builder.finish();
const run = built.runIds([0, 1, 2, 3, 1, 2, 3], { switchedOff: [[1, 0]] });
const names: string[] = run.names();
const layer: number = run.layer('layers.1.q');
const analysis: HeadAnalysis | null = run.headAnalysis();
const labels = analysis ? analysis.layers[1].heads.map((h) => h.label) : [];
const stage: StageId = run.stage('layers.1.weights');
const attend: string[] = run.tensorsOf('attend');
const config: ModelConfig = built.config;
// What each head contributes: one logit split, importance, the pruning curve.
const split: LogitAttribution = run.attribute({ position: 3 });
const byHead = split.parts.filter((p) => p.kind === 'head').map((p) => [p.layer, p.head, p.value]);
const everyPosition: Attributions = run.attributions();
const lastHead: number = everyPosition.values[(everyPosition.positions - 1) * everyPosition.parts.length + 1];
const importance: HeadImportance = built.headImportance([0, 1, 2, 1, 2]);
const onTask: number = built.headImportance(null, { samples: 16, seed: 2 }).layers[0].heads[0].importance_normalised;
const curve: PruneCurve = built.prune({ samples: mha.catalog.importance.samples });
const removed: Array<[number, number]> = curve.steps[3].removed;
const writes: Float32Array = run.data('layers.1.head_write');
const walked: StageId[] = config.stages;
const ids: Int32Array = run.ids();
const file: Uint8Array = built.modelFile();
const wq: { shape: number[]; data: Float32Array } = model.weight('w_q');
const seeded: boolean = model.isSeeded;
model.configure({ heads: 8 }).useRandomWeights({ seed: 3 });

// The core's table.
const table = mha.stageTable;
const firstStage: StageId = mha.STAGES[0];
const single: StageId[] = table.stagesOf.single;
const formulas: string[] = table.tensors.map((t) => `${t.name} ${t.shape} ${t.formula}`);
const layout = mha.guessLayout(header, fileSize);
const memory: number = mha.memoryBytes();

// Training.
const trainer = new mha.Trainer({ seed: 2 });
const losses: Float32Array = trainer.step(100);
const score: number = trainer.inductionScore();
const steps: number = trainer.stepsDone;
const weightsNow: Uint8Array = trainer.modelFile();
trainer.runIds(ids).delete();
trainer.delete();

// GPT-2's tokenizer.
const gpt2 = new mha.Gpt2Tokenizer(encoderJson, vocabBpe);
const encoded: { tokens: string[]; ids: Int32Array } = gpt2.encode('Hello world');
const vocab: number = gpt2.vocabSize;
const text: string = gpt2.tokenText(15496);
new mha.Model().loadModel(safetensors).setTokenizer(gpt2).runText('Hello world').delete();

// Generation with the KV cache: all at once, or step by step.
const generation: Generation = built.generate([0, 1, 2, 3, 1], { tokens: 3, temperature: 0.8, topK: 5, topP: 0.9, seed: 4 });
const generator = built.generator('我是秦始皇，我是', { tokens: 3, cache: false });
while (!generator.done) {
  const next: GenerationStep = generator.step();
  console.log(next.token, next.p, next.top[0][0], next.before[0], next.kept, next.sampled, next.text);
}
const cached: KvCacheSize | null = generator.cache;
generator.delete();
const gib: number = mha.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128, bytesPerValue: 2, tokens: 8192 });
const published: string[] = mha.catalog.kvCache.published.map((m) => `${m.name}: ${m.kvHeads} of ${m.heads}`);
const greedy: number = mha.catalog.generate.defaults.temperature;
console.log(generation.text, Array.from(generation.new), cached, gib, published, greedy);

console.log(tokens, shape, weights, names, layer, labels, stage, attend, walked, file, wq, seeded, firstStage, single,
  formulas, layout, memory, losses, score, steps, weightsNow, encoded, vocab, text);
