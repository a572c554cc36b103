// The pipeline strip: one button per stage with the shape after it; the current stage is marked.
import { h, setText } from '../dom.js';
import { t } from '../i18n.js';
import { shapeText } from '../format.js';
import { STEPS } from '../steps.js';

const SHAPE_OF = { embed: 'x', project: 'q', split: 'q_heads', attend: 'weights', concat: 'concat', output: 'y' };

export function mountPipeline(root, store, goTo) {
  const buttons = STEPS.map((step, i) => {
    const name = h('span', { class: 'pipe-name' });
    const shape = h('span', { class: 'pipe-shape' });
    const button = h('button', { type: 'button', class: `pipe fam-${step.family}`, 'data-stage-button': step.id, onclick: () => goTo(step.id) },
      h('span', { class: 'pipe-num' }, String(i + 1)), name, shape);
    return { step, button, name, shape };
  });
  root.append(h('ol', { class: 'pipe-list' }, buttons.map((b) => h('li', {}, b.button))));

  function render(state) {
    for (const { step, button, name, shape } of buttons) {
      setText(name, t(state.lang, `${step.id}.short`));
      if (state.result) {
        const tensor = SHAPE_OF[step.id];
        setText(shape, tensor ? shapeText(state.result.tensors[tensor].shape) : t(state.lang, 'tokensShape', { T: state.result.tokens.length }));
      }
      const current = step.id === state.stage;
      if (current !== button.hasAttribute('aria-current')) {
        if (current) button.setAttribute('aria-current', 'step');
        else button.removeAttribute('aria-current');
      }
    }
  }
  render(store.state);
  store.subscribe((state, changed) => {
    if (changed.has('lang') || changed.has('result') || changed.has('stage')) {
      render(state);
      if (changed.has('stage')) {
        const current = root.querySelector('[aria-current="step"]');
        if (current && current.scrollIntoView && root.scrollWidth > root.clientWidth) current.scrollIntoView({ block: 'nearest', inline: 'center' });
      }
    }
  });
}
