// The widget's part 'decoding' (parts.js): the predict stage's Generate, its KV cache and the cache
// calculator, drawn once a model with blocks has shown its first frame (steps.js partsDrawn).
export { generateView } from './generate.js';
export { kvCacheView, kvCalculatorView } from './kvCacheViews.js';
