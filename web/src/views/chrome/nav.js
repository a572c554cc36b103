// Prev/Next buttons and the ←/→ keys (ignored while typing in a field, and when a heatmap used them
// to move its cursor: it prevents their default). The keys are heard on keyRoot, the demo itself,
// so several demos on one page do not all step at once.
import { t } from '../../i18n.js';
import { setText, setDisabled } from '../../dom.js';
import { stageIdsOf } from '../../stages.js';

export function typing(ev) {
  const target = ev.composedPath ? ev.composedPath()[0] : ev.target;
  if (!target || !target.tagName) return false;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable;
}

export function mountNav(prev, next, store, goTo, keyRoot) {
  const ids = () => stageIdsOf(store.state.result) || [];
  const step = (delta) => {
    const i = ids().indexOf(store.state.stage) + delta;
    if (i >= 0 && i < ids().length) goTo(ids()[i]);
  };
  prev.addEventListener('click', () => step(-1));
  next.addEventListener('click', () => step(1));
  keyRoot.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || typing(ev)) return;
    if (ev.key === 'ArrowRight') {
      step(1);
      ev.preventDefault();
    } else if (ev.key === 'ArrowLeft') {
      step(-1);
      ev.preventDefault();
    }
  });
  function render(state) {
    setText(prev, t(state.lang, 'prev')); // on every result: a text written again is laid out again
    setText(next, t(state.lang, 'next'));
    const i = ids().indexOf(state.stage);
    // (a button disabled while it has the focus hands it to the other)
    setDisabled([[prev, i <= 0], [next, i < 0 || i >= ids().length - 1]]);
  }
  render(store.state);
  store.subscribe((state, changed) => {
    if (changed.has('lang') || changed.has('stage') || changed.has('result')) render(state);
  });
}
