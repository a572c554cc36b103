// The widget's part 'training' (parts.js): the panels that train in a Web Worker, with their
// stylesheet; element.js mounts them when the model shown has a recipe, or on el.train().
export { mountTrainPanel } from './train.js';
export { mountSweepPanel } from './sweep.js';
export { default as css } from './training.css';
