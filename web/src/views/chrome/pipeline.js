// The pipeline strip: one button per stage of the model shown, with the shape after it; the
// current stage is marked. Built anew when a result of another kind of model arrives.
import { h, setText, setAttr, clear } from '../../dom.js';
import { t } from '../../i18n.js';
import { shapeText } from '../../format.js';
import { stageIdsOf, shapeTensorOf } from '../../stages.js';

export function mountPipeline(root, store, goTo) {
  let buttons = [];
  let builtFor = null;
  function build(ids) {
    builtFor = ids.join();
    clear(root);
    buttons = ids.map((id, i) => {
      const name = h('span', { class: 'pipe-name' });
      const shape = h('span', { class: 'pipe-shape' });
      const family = store.state.result.stages[i].family;
      const button = h('button', { type: 'button', class: `pipe fam-${family}`, 'data-stage-button': id, onclick: () => goTo(id) },
        h('span', { class: 'pipe-num' }, String(i + 1)), name, shape);
      return { id, button, name, shape };
    });
    root.append(h('ol', { class: 'pipe-list' }, buttons.map((b) => h('li', {}, b.button))));
  }

  function render(state) {
    if (!state.result) return;
    const ids = stageIdsOf(state.result);
    if (ids.join() !== builtFor) build(ids);
    for (const { id, button, name, shape } of buttons) {
      setText(name, t(state.lang, `${id}.short`));
      const tensor = shapeTensorOf(state.result, id);
      setText(shape, tensor ? shapeText(state.result.tensors[tensor].shape) : t(state.lang, 'tokensShape', { T: state.result.tokens.length }));
      const current = id === state.stage;
      if (current !== button.hasAttribute('aria-current')) {
        if (current) button.setAttribute('aria-current', 'step');
        else button.removeAttribute('aria-current');
      }
    }
  }
  // The current stage's button in the middle of the strip when the strip scrolls: after a stage
  // change, and when a strip is first built (a demo opened at stage=attend shows attend, not tokenize).
  // Sideways only: the page itself does not move.
  function centreCurrent() {
    const current = root.querySelector('[aria-current="step"]');
    if (current && root.scrollWidth > root.clientWidth) {
      const b = current.getBoundingClientRect();
      const r = root.getBoundingClientRect();
      root.scrollLeft += b.left + b.width / 2 - (r.left + r.width / 2);
    }
    edges();
  }
  // Which ends of a strip that scrolls have more stages past them (l, r): those ends fade out
  // (widget.css), so a stage cut by the edge reads as "more this way".
  function edges() {
    const x = root.scrollLeft;
    setAttr(root, 'data-more', `${x > 1 ? 'l' : ''}${x + root.clientWidth < root.scrollWidth - 1 ? 'r' : ''}`);
  }
  root.addEventListener('scroll', edges, { passive: true });
  render(store.state);
  store.subscribe((state, changed) => {
    if (changed.has('lang') || changed.has('result') || changed.has('stage')) {
      const before = builtFor;
      render(state);
      if (changed.has('stage')) centreCurrent();
      else if (builtFor !== before) requestAnimationFrame(centreCurrent);
      else if (changed.has('lang')) requestAnimationFrame(edges); // other words, other widths
    }
  });
}
