// The shape of one demo's store (store.js): every field, what it holds, and its start. Views read
// it; the element, the runner and the controls write it.
import { SETTING_ATTRS, DEFAULTS, SAMPLING_DEFAULTS } from './attributes.js';

export function initialState() {
  return {
    lang: 'en',
    stage: 'tokenize', // a stage id of the core's table (stages.js)
    // What the core runs on (attributes.js SETTING_ATTRS): model 'trained' | 'random' | 'file', …
    settings: { model: 'random', text: '', ids: null, dModel: DEFAULTS.dModel, heads: DEFAULTS.heads, kvHeads: DEFAULTS.heads, causal: DEFAULTS.causal, seed: DEFAULTS.seed, layer: null, switchedOff: [] },
    result: null, // the last good run (engine.js snapshot): {text, tokens, ids, config, layer, stages, heads, tensors}
    errors: {}, // settings key (or 'weights', 'model', …) -> the core's error {message, field, code, params}, or a page message
    attrErrors: [], // [{attribute, message}] for attributes the core never sees
    status: 'loading', // 'loading' | 'loading-weights' | 'computing' | 'idle'
    computingSince: null, // performance.now() when a large (worker) run started
    lastMs: 0, // how long the last run took
    fatal: null, // the core could not be loaded or failed unexpectedly: nothing else can be shown
    fatalHtml: false,
    attendMode: 'weights', // 'raw' | 'scores' | 'weights' at the attend stage
    head: 0, // the head enlarged at the attend stage
    worked: null, // the worked example's tiny run
    controls: 'full', // 'full' | 'minimal' | 'none'
    weights: null, // one attention layer's weights: {url, layout, layer, bytes, file?}
    // a model or weights asked for that could not be had (modelSources.js): {attribute: 'model' |
    // 'weights' | 'file', message (messages.js), instead: 'kept' | 'seeded' | 'trained' | null, what the pictures show}
    unavailable: null,
    opening: null, // a file being opened (modelSources.js): {name, read, total} in bytes, else null
    position: null, // the position whose prediction the predict stage splits into its parts (null: the last)
    pruning: null, // the trained model's pruning curve (analyses.js): {steps} once computed, {error} if it failed
    importance: null, // a shipped model's heads' importance on the last text it came for (analyses.js): {model, ids, layers: [{heads: [{importance, …}]}]}
    // Generate (the predict stage, generation.js): how the next token is drawn and how many "Generate"
    // takes, from the core's catalog.generate.defaults (temperature 0: greedy)
    sampling: { temperature: SAMPLING_DEFAULTS.temperature, topK: SAMPLING_DEFAULTS.topK, topP: SAMPLING_DEFAULTS.topP, seed: SAMPLING_DEFAULTS.seed, tokens: SAMPLING_DEFAULTS.tokens },
    // the continuation drawn last: {id, prompt, text (the text after its last step), sampling, steps:
    // [the core's step objects], running, error}; shown while settings.text is its text
    generation: null,
    replay: 0, // a link's generate="N": tokens to draw again once its text has run
    // the circuits view (views/stages/circuits.js): the composition mode shown, and the token changed
    // for activation patching (position, replacement id; null: the view's default) on the ids forIds;
    // ran, scored: the patching and the model whose scores were last asked for where they do not come at once
    // head: the [layer, head] whose QK and OV are shown (null: the strongest composition's writer);
    // headShown: the text and head they were last asked for where they do not come at once
    // patched: {asked, result | error} of the last patching run in the background (element.js)
    circuits: { mode: 'K', position: null, replacement: null, forIds: null, ran: null, scored: null, head: null, headShown: null, patched: null, scoresCame: 0 },
  };
}

// Keys that follow a result, computed off the main thread for it (analyses.js): drawn as a new result
// is, so the parts of a picture scrolled out of view take them after the frame (sections.js, lazy.js).
export const FOLLOW_RESULT = ['pruning', 'importance'];

// Settings are numbers, strings and (switchedOff) lists of [layer, head] pairs.
export const sameValue = (a, b) => Object.is(a, b) || (Array.isArray(a) && Array.isArray(b) && JSON.stringify(a) === JSON.stringify(b));
export const sameSettings = (a, b) => Object.keys(SETTING_ATTRS).every((attr) => sameValue(a[SETTING_ATTRS[attr]], b[SETTING_ATTRS[attr]]));
