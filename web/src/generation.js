// Generating from the text, a token in an animation frame: each step is the core's (engine.js
// generator(): the one forward over the new token against the KV cache of the earlier ones, then
// a draw from its logits), its token is appended to the text, and the page runs the ids drawn
// (settings.sequence), so every stage, the prediction and the cache view follow it. Then the page
// rests as long as the token took (its run and its frame), so generating holds at most about half
// of the main thread and frames keep coming whatever a token costs: at T ≈ 50 on a 2-core VM a token
// took 10–40 ms (warm or cold code), and one token every frame held the page at 20–30 frames a
// second (tests/browser/generate.test.js). The store's
// `generation` records the continuation shown; one generator serves it while the text and the
// sampling settings are its own, so "one token" clicks continue it with the same draws as one long
// run (a permalink replays it that way). A new generation reads the text as the tokenizer does.
import { storedError } from './messages.js';

// What the Generate part offers where a greedy continuation of real text comes back on itself. Top-k
// 40 is what GPT-2's samples were drawn with (Radford et al. 2019); at 0.8 the poems' model goes on
// from 春望 in the poems' form (江上无程久，东南万里深。) where greedy writes 一夜一夜月，一声三月月。
export const LANGUAGE_SAMPLING = { temperature: 0.8, topK: 40 };

// The longest run of two or more tokens that a continuation writes twice without overlap, one of them
// holding a letter or a character (a loop, not a pair of marks): its tokens, or null where none is.
export function repeatedSpan(tokens) {
  for (let n = Math.floor(tokens.length / 2); n >= 2; n--) {
    const first = new Map(); // a run's tokens -> where it first starts
    for (let i = 0; i + n <= tokens.length; i++) {
      const run = tokens.slice(i, i + n);
      const key = JSON.stringify(run);
      if (!first.has(key)) first.set(key, i);
      else if (first.get(key) + n <= i && run.some((token) => /\p{L}/u.test(token))) return run;
    }
  }
  return null;
}

// The sampling settings a generation was drawn with, compared key by key.
const SAMPLING_KEYS = ['temperature', 'topK', 'topP', 'seed'];
export const sameSampling = (a, b) => SAMPLING_KEYS.every((k) => a[k] === b[k]);

// The continuation on screen: its steps while the text and the sampling settings are still its own.
export function shownGeneration(state) {
  const g = state.generation;
  return g && g.steps.length && g.text === state.settings.text && sameSampling(g.sampling, state.sampling) ? g : null;
}

// deps: {engine: () -> the Engine or null, request: (changedKey) -> a run of the settings}
export function createGeneration(store, deps) {
  let generator = null; // the core's, for store.state.generation while it is continued
  let left = 0; // steps still to take
  let frame = null;
  let rest = null; // the timer between one token's frame and the next token
  let started = 0; // numbers the generations, so a view tells a new one from the last

  function drop() {
    if (frame !== null) cancelAnimationFrame(frame);
    if (rest !== null) clearTimeout(rest);
    frame = rest = null;
    left = 0;
    if (generator) generator.delete();
    generator = null;
  }

  function fail(e) {
    drop();
    const g = store.state.generation;
    store.set({ generation: { ...(g || { prompt: store.state.settings.text, text: null, sampling: store.state.sampling, steps: [] }), running: false, error: storedError(e) } });
  }

  // Takes `count` more tokens: the generation shown continues when its text and settings are
  // unchanged, else a new one starts from the text. The prompt and the tokens must fit the model's
  // positions: asked of the core first, so the message is its own, before anything is drawn.
  function run(count) {
    const s = store.state;
    const engine = deps.engine();
    if (!engine || !s.result) return;
    const g = shownGeneration(s);
    const continuing = generator && g;
    try {
      engine.generator(s.settings, s.sampling, count).delete(); // only its checks
      if (!continuing) {
        drop();
        // Room for every position the model has left, so later clicks draw on from the same generator.
        generator = engine.generator(s.settings, s.sampling, s.result.config.maxPositions - s.result.ids.length);
        store.set({ generation: { id: ++started, prompt: s.settings.text, text: s.settings.text, sampling: { ...s.sampling }, steps: [], running: true, error: null } });
      } else store.set({ generation: { ...g, running: true, error: null } });
    } catch (e) {
      if (engine.isMhaError(e)) fail(e);
      else throw e;
      return;
    }
    left = count;
    frame = requestAnimationFrame(tick);
  }

  // A task posted from a frame's callback runs once that frame is drawn: by then the token has cost
  // its run and its drawing, and the next one waits as long again.
  function next(tokenStarted) {
    rest = setTimeout(() => {
      rest = setTimeout(() => {
        rest = null;
        frame = requestAnimationFrame(tick);
      }, performance.now() - tokenStarted);
    }, 0);
  }

  function tick() {
    frame = null;
    const tokenStarted = performance.now();
    const g = store.state.generation;
    if (!generator || !g || g.text !== store.state.settings.text) return drop(); // the text was edited meanwhile
    let step;
    try {
      step = generator.step();
    } catch (e) {
      fail(e);
      return;
    }
    left -= 1;
    const running = left > 0 && !generator.done;
    // The page runs the ids drawn (engine.js), each named as the core writes it.
    const sequence = { text: step.text, ids: Array.from(generator.ids), tokens: generator.tokens };
    store.set({ generation: { ...g, text: step.text, steps: [...g.steps, step], running }, settings: { ...store.state.settings, text: step.text, sequence } });
    deps.request('text');
    if (running) next(tokenStarted);
  }

  return {
    run,
    // A link's generate="N": the prompt has run; draw its N tokens again.
    replay(count) {
      drop();
      run(count);
    },
    stop: drop,
  };
}
