// The seven stage sections: title, explanation, formula and the stage's picture. Only the current
// one is visible; all are redrawn when the result or the language changes.
import { h, clear } from '../dom.js';
import { t } from '../i18n.js';
import { STEPS } from '../steps.js';

export function mountSections(root, store, actions) {
  const sections = STEPS.map((step, i) => {
    const kicker = h('p', { class: 'stage-kicker' });
    const title = h('h2', { class: 'stage-title', id: `title-${step.id}` });
    const text = h('p', { class: 'stage-text' });
    const formula = h('div', { class: 'formula', role: 'math' });
    const body = h('div', { class: 'stage-body' });
    const section = h('section', { 'data-stage': step.id, class: `stage fam-${step.family}`, 'aria-labelledby': `title-${step.id}` },
      h('header', { class: 'stage-head' }, kicker, title), text, formula, body);
    section.hidden = true;
    root.append(section);
    return { step, i, section, kicker, title, text, formula, body };
  });

  function renderText(state) {
    const ctx = { lang: state.lang, config: state.result.config, T: state.result.tokens.length };
    for (const s of sections) {
      s.kicker.textContent = t(state.lang, 'stepOf', { i: s.i + 1 });
      s.title.textContent = t(state.lang, s.step.title);
      s.text.innerHTML = s.step.text(ctx);
      s.formula.innerHTML = s.step.formula(ctx);
    }
  }

  function renderBody(s, state) {
    clear(s.body);
    const view = s.step.view(state, actions);
    if (view) s.body.append(view);
  }

  function showCurrent(state, previous) {
    for (const s of sections) s.section.hidden = s.step.id !== state.stage;
    const prev = sections.find((s) => s.step.id === previous);
    const cur = sections.find((s) => s.step.id === state.stage);
    if (prev && prev !== cur) prev.step.exit(prev.section);
    if (cur) cur.step.enter(cur.section);
  }

  let lastStage = null;
  return {
    renderAll(state) {
      renderText(state);
      for (const s of sections) renderBody(s, state);
      showCurrent(state, lastStage);
      lastStage = state.stage;
    },
    update(state, changed) {
      if (!state.result) return;
      if (changed.has('result') || changed.has('lang')) {
        renderText(state);
        for (const s of sections) renderBody(s, state);
      } else if (changed.has('attendMode') || changed.has('head') || changed.has('worked')) {
        renderBody(sections.find((s) => s.step.id === 'attend'), state);
      }
      if (changed.has('stage') || lastStage === null) {
        showCurrent(state, lastStage);
        lastStage = state.stage;
      }
    },
  };
}
