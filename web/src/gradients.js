// The part 'gradients' (parts.js): the whole WebAssembly core, mha-core.js, with what the widget's own
// module leaves out (the Trainer, headImportance, prune: the backward pass, AdamW, the tasks' data),
// as {core, wasmGz} for core.js's evaluateCreateMha and workerURL: the workers that train and take
// gradients, and the page's window.createMha.
import core from 'core-parts:full';

export { core };
