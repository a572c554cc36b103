// Every method of every raw handle (cpp/bindings/handles.h) runs through the guard: given bad input
// it answers with its documented failure value and keeps the error for lastError(), never lets a C++
// exception out as a raw WebAssembly.Exception (after ~13,500 of those the module used to hang).
// The methods are read off the module, so a method added without its guard fails here. Then the same
// bad input through web/mha.js: each is an MhaError naming what was wrong, and the module still answers.
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const createMhaCore = require('../../web/build/mha-core.js');
const createMha = require('../../web/mha.js');

const root = path.join(__dirname, '..', '..');
let core;
let mha;

before(async () => {
  core = await createMhaCore();
  mha = await createMha();
});

// Embind's own members of every class; the rest are the handle's methods.
const EMBIND = new Set(['constructor', 'isAliasOf', 'clone', 'delete', 'isDeleted', 'deleteLater', 'lastError', 'lastErrorInfo']);
const methodsOf = (Class) => Object.getOwnPropertyNames(Class.prototype).filter((n) => !EMBIND.has(n));

// Values a caller could get wrong: wrong types, fractions, numbers past an int, bytes that are no file.
const BAD = [undefined, null, -1, 2.5, 2 ** 31, 1e12, NaN, Infinity, 'x', '', {}, [], [1, 'a'], new Uint8Array([1, 2, 3]),
  { batch: 2.5 }, { layers: 1 }, { dModel: -4 }];

// Arguments that are handles of another class are given one (Embind itself refuses any other value).
function handleArgs(name, method, fresh) {
  if (name === 'RawModel' && method === 'setTokenizer') return [fresh.tokenizer()];
  if (name === 'RawModel' && method === 'refillInput') return [fresh.trace()];
  if (name === 'RawModelBuilder' && method === 'finish') return [fresh.model()];
  return [];
}

// A raw handle of each class, fresh, and a trained-a-little trainer whose methods all run.
function makers(made) {
  const keep = (x) => (made.push(x), x);
  const model = () => keep(new core.RawModel());
  return {
    model,
    tokenizer: () => keep(new core.RawTokenizer()),
    trace: () => {
      const m = model();
      m.configure({ dModel: 8, heads: 2 });
      return keep(m.runText('a b c', undefined));
    },
    trainer: () => {
      const t = keep(new core.RawTrainer());
      assert.equal(t.start({ dModel: 8, heads: 2, vocabSize: 8, maxLength: 4, batch: 2 }, undefined), '');
      return t;
    },
    builder: () => keep(new core.RawModelBuilder()),
  };
}

test('every raw handle method, given bad input, returns its failure value and keeps the error; none throws', () => {
  const made = [];
  const fresh = makers(made);
  const handles = {
    RawModel: fresh.model,
    RawTokenizer: fresh.tokenizer,
    Trace: fresh.trace,
    RawTrainer: fresh.trainer,
    RawModelBuilder: fresh.builder,
    RawTrainerNotStarted: () => fresh.model() && (made.push(new core.RawTrainer()), made[made.length - 1]),
  };
  let calls = 0;
  let failures = 0;
  for (const [label, make] of Object.entries(handles)) {
    const name = label === 'RawTrainerNotStarted' ? 'RawTrainer' : label;
    const methods = methodsOf(core[name]);
    assert.ok(methods.length >= 5, `${name} has its methods`);
    for (const method of methods) {
      const handle = make();
      const arity = handle[method].length;
      const given = handleArgs(name, method, fresh);
      for (const bad of BAD) {
        const args = [...given, ...Array(arity - given.length).fill(bad)];
        let result;
        try {
          result = handle[method](...args);
        } catch (e) {
          assert.fail(`${name}.${method}(${args.map((a) => String(a)).join(', ')}) threw ${e && e.constructor && e.constructor.name}: ${e}`);
        }
        calls++;
        // A failure value comes with its error kept, and an error is one line.
        const error = handle.lastError();
        if (result === null || (typeof result === 'string' && result !== '' && result === error)) {
          if (arity > 0) assert.ok(error || result === null, `${name}.${method}: a failure keeps its error`);
          if (error) {
            failures++;
            assert.doesNotMatch(error, /\n/, `${name}.${method}: one line`);
            assert.doesNotMatch(error, /json\.exception|basic_filebuf|std::/, `${name}.${method}: the core's words`);
            assert.equal(handle.lastErrorInfo().message, error);
          }
        }
      }
    }
  }
  assert.ok(calls > 400 && failures > 200, `${calls} calls, ${failures} refused`);
  for (const h of made) if (!h.isDeleted()) h.delete();
  // The module still answers.
  const m = new core.RawModel();
  assert.equal(m.configure({ dModel: 8, heads: 2 }), '');
  const t = m.runText('still here', undefined);
  assert.deepEqual(t.tokens(), ['still', 'here']);
  t.delete();
  m.delete();
});

test('15,000 refused calls in a row leave the module answering and its memory where it was', () => {
  const trainer = new core.RawTrainer();
  assert.equal(trainer.start({ dModel: 8, heads: 2, vocabSize: 8, maxLength: 4 }, undefined), '');
  const before = core.memoryBytes();
  for (let i = 0; i < 15000; i++) assert.equal(trainer.inductionScore(0), null);
  assert.match(trainer.lastError(), /sequences must be between 1 and 100000, got 0/);
  assert.ok(core.memoryBytes() - before <= 1 << 20, `memory grew by ${core.memoryBytes() - before} bytes`);
  assert.ok(trainer.inductionScore(1) >= 0);
  trainer.delete();
});

test('through web/mha.js, bad input is an MhaError naming the option, never a raw exception', () => {
  const cases = [
    // the repro: a one-layer trainer is refused where it starts, not at its first evaluation
    [() => new mha.Trainer({ layers: 1 }), 'layers', 'induction_needs_two_layers'],
    [() => new mha.Trainer({ batch: 2.5 }), 'batch', 'not_whole'],
    [() => new mha.Trainer({ batch: 1e12 }), 'batch', 'out_of_range', { name: 'batch', min: '1', max: '4096', value: '1000000000000' }],
    [() => new mha.Trainer({ maxLength: 2 ** 31 }), 'max_length', 'out_of_range'],
    [() => new mha.Trainer({ lr: 'fast' }), 'lr', 'not_a_number'],
    [() => new mha.Trainer({ vocabSize: 1 << 20 }), null, 'training_too_large'],
    [() => new mha.Model().loadModel(fs.readFileSync(path.join(root, 'models/induction.safetensors')), { heads: 2 ** 31 }),
      'heads', 'out_of_range', { name: 'heads', min: '0', max: '256', value: '2147483648' }],
    [() => new mha.Model().loadModel(new Uint8Array(8), { heads: 1.5 }), 'heads', 'not_whole'],
    [() => new mha.Model().loadWeights(new Uint8Array(8), 'pytorch', 2 ** 31), 'layer', 'out_of_range'],
    [() => new mha.Model().loadWeights(new Uint8Array(8), 7), null, null],
    [() => new mha.Model().runText(42), null, null],
    [() => new mha.Model({ dModel: 8, heads: 2 }).runInput([1, 2], 2 ** 31), 'T', 'out_of_range'],
    [() => new mha.ModelBuilder(new Uint8Array(8), -1), 'file_size', 'out_of_range'],
    [() => new mha.ModelBuilder(new Uint8Array(8), 8, { heads: -1 }), 'heads', 'out_of_range'],
  ];
  const trainer = new mha.Trainer({ dModel: 8, heads: 2, vocabSize: 8, maxLength: 4 });
  cases.push([() => trainer.inductionScore(0), 'sequences', 'out_of_range']);
  cases.push([() => trainer.step(2.5), 'count', 'not_whole']);
  cases.push([() => trainer.runIds('ids'), null, null]);
  for (const [fn, field, code, params] of cases) {
    let error = null;
    try {
      fn();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof mha.MhaError, `${fn}: ${error && error.constructor.name} ${error}`);
    assert.doesNotMatch(error.message, /\n/);
    if (field !== undefined) assert.equal(error.field, field, `${fn}: ${error.message}`);
    if (code) assert.equal(error.code, code, `${fn}: ${error.message}`);
    if (params) assert.deepEqual(error.params, params);
  }
  trainer.delete();
});

test('a file error says the file the caller named, and every one the module gives has its Chinese sentence', async () => {
  const { localMessage } = await import('../../web/src/messages.js');
  const repro = (f) => fs.readFileSync(path.join(root, 'tests/data/repro', f));
  const good = fs.readFileSync(path.join(root, 'models/induction.safetensors'));
  const model = new mha.Model();
  const tries = [
    () => model.loadModel(repro('json406-minimal.safetensors'), { name: 'big.safetensors' }),
    () => model.loadModel(repro('inconsistent-files/duplicate_name.safetensors'), { name: 'dup.safetensors' }),
    () => model.loadModel(repro('inconsistent-files/overlap.safetensors'), { name: 'o.safetensors' }),
    () => model.loadModel(repro('inconsistent-files/heads_2abc.safetensors'), { name: 'h.safetensors' }),
    () => model.loadModel(good.subarray(0, 200), { name: 'cut.safetensors' }),
    () => model.loadWeights(good, 'llama', 0, { name: 'trained.safetensors' }),
    () => new mha.ModelBuilder(repro('inconsistent-files/partial_overlap.safetensors'), 4777, { name: 'p.safetensors' }),
    () => mha.guessLayout(new Uint8Array(4), -1, { name: 'tiny.safetensors' }),
    () => new mha.Gpt2Tokenizer(repro('json406-tokenizer/encoder.json'), new Uint8Array(), { vocabName: 'encoder.json' }),
    () => new mha.Gpt2Tokenizer(repro('bpe-quote-overflow/encoder.json'), repro('bpe-quote-overflow/vocab.bpe')),
  ];
  for (const fn of tries) {
    let e = null;
    try {
      fn();
    } catch (error) {
      e = error;
    }
    assert.ok(e instanceof mha.MhaError, String(fn));
    assert.ok(e.code, `${e.message} has a code`);
    assert.ok(e.params.file, `${e.message} names its file`);
    assert.ok(e.message.includes(e.params.file), e.message);
    const zh = localMessage(e, 'zh');
    assert.notEqual(zh, e.message, `${e.code} has a Chinese sentence`);
    assert.doesNotMatch(zh, /\{\w+\}/, `${e.code}: every placeholder filled`);
    assert.match(zh, /[\u4e00-\u9fff]/, `${e.code}: Chinese`);
  }
  // A file given without its name is "the file", which the Chinese says in Chinese.
  let unnamed = null;
  try {
    model.loadModel(new Uint8Array(3));
  } catch (e) {
    unnamed = e;
  }
  assert.equal(unnamed.message, 'the file is 3 bytes: too short for a safetensors file, which starts with an 8-byte header length');
  assert.match(localMessage(unnamed, 'zh'), /^该文件/);
  model.delete();
});
