// The seven stage sections: title, explanation, formula and the stage's picture. Only the current
// one is visible. When the result or the language changes, the current one is redrawn at once and
// the hidden ones one per task after it, so the first frame does not wait for all seven.
import { h, clear } from '../dom.js';
import { t } from '../i18n.js';
import { STEPS } from '../steps.js';
import { exportStage } from '../export/files.js';

export function mountSections(root, store, actions) {
  const stageExport = (step, format, label) =>
    h('button', {
      type: 'button',
      class: 'export-btn',
      'data-export-stage': format,
      onclick: (ev) => {
        if (store.state.result) exportStage(store.state.result, step.id, format, ev.currentTarget);
      },
    }, label);

  const sections = STEPS.map((step, i) => {
    const kicker = h('p', { class: 'stage-kicker' });
    const title = h('h2', { class: 'stage-title', id: `title-${step.id}` });
    const exportLabel = h('span', { class: 'export-label' });
    const exports = h('div', { class: 'export stage-export' }, exportLabel, stageExport(step, 'csv', 'CSV'), stageExport(step, 'safetensors', 'safetensors'));
    const text = h('p', { class: 'stage-text' });
    const formula = h('div', { class: 'formula', role: 'math' });
    const body = h('div', { class: 'stage-body' });
    const section = h('section', { 'data-stage': step.id, class: `stage fam-${step.family}`, 'aria-labelledby': `title-${step.id}` },
      h('header', { class: 'stage-head' }, h('div', {}, kicker, title), exports), text, formula, body);
    section.hidden = true;
    root.append(section);
    return { step, i, section, kicker, title, exports, exportLabel, text, formula, body, dirty: true };
  });

  function renderText(state) {
    const ctx = { lang: state.lang, config: state.result.config, T: state.result.tokens.length };
    for (const s of sections) {
      s.kicker.textContent = t(state.lang, 'stepOf', { i: s.i + 1 });
      s.title.textContent = t(state.lang, s.step.title);
      s.text.innerHTML = s.step.text(ctx);
      s.formula.innerHTML = s.step.formula(ctx);
      s.exportLabel.textContent = t(state.lang, 'exportStage');
      for (const b of s.exports.querySelectorAll('button')) b.title = t(state.lang, 'exportStageAs', { format: b.textContent });
    }
  }

  function renderBody(s, state) {
    clear(s.body);
    s.dirty = false;
    const view = s.step.view(state, actions);
    if (view) s.body.append(view);
  }

  // The hidden sections, one per task, in stage order; a newer result restarts the queue.
  let pending = null;
  function renderRestLater() {
    if (pending) clearTimeout(pending);
    const next = () => {
      pending = null;
      const s = sections.find((x) => x.dirty);
      if (!s || !store.state.result) return;
      renderBody(s, store.state);
      pending = setTimeout(next, 0);
    };
    pending = setTimeout(next, 0);
  }

  function showCurrent(state, previous) {
    const cur = sections.find((s) => s.step.id === state.stage);
    if (cur && cur.dirty && state.result) renderBody(cur, state);
    for (const s of sections) s.section.hidden = s.step.id !== state.stage;
    const prev = sections.find((s) => s.step.id === previous);
    if (prev && prev !== cur) prev.step.exit(prev.section);
    if (cur && previous !== null) cur.step.enter(cur.section);
  }

  let lastStage = null;
  return {
    update(state, changed) {
      if (!state.result) return;
      if (changed.has('result') || changed.has('lang')) {
        renderText(state);
        for (const s of sections) s.dirty = true;
        renderBody(sections.find((s) => s.step.id === state.stage), state);
        renderRestLater();
      } else if (changed.has('attendMode') || changed.has('head') || changed.has('worked')) {
        renderBody(sections.find((s) => s.step.id === 'attend'), state);
      }
      if (changed.has('stage') || lastStage === null) {
        showCurrent(state, lastStage);
        lastStage = state.stage;
      }
    },
    destroy() {
      if (pending) clearTimeout(pending);
      pending = null;
    },
  };
}
