// Generate, at the predict stage: the buttons and the sampling settings, and each step's draw —
// the candidates of the distribution it came from, where top-k and top-p cut it, the one chosen,
// greedy or sampled. Live: a new step adds its row, a changed setting rewrites its field; the
// layout is built again only for another language.
import { h, live, setText, setAttr, setPressable } from '../../dom.js';
import { t } from '../../i18n.js';
import { localMessage } from '../../messages.js';
import catalog from '../../catalog.js';
import { shownGeneration, repeatedSpan, LANGUAGE_SAMPLING } from '../../generation.js';
import { onRealText } from '../../modelFacts.js';
import { idNamer } from './model.js';
import { visibleToken } from '../../format.js';

const LIMITS = { temperature: [0, catalog.generate.maxTemperature, 0.1], topK: [0, null, 1], topP: [0, 1, 0.05], seed: [0, null, 1], tokens: [1, null, 1] };

function numberField(lang, key, state, actions) {
  const [min, max, step] = LIMITS[key];
  const input = h('input', { type: 'number', min, max: max ?? undefined, step, value: String(state.sampling[key]), 'data-sampling': key });
  input.addEventListener('change', () => {
    const v = Number(input.value);
    if (input.value.trim() !== '' && Number.isFinite(v)) actions.setSampling({ [key]: v });
    else input.value = String(actions.sampling()[key]);
  });
  return [h('label', { class: 'field field-num' }, h('span', { class: 'field-label' }, t(lang, `gen.${key}`)), input), input];
}

// One step: its token, how it was chosen and its p, then the candidates it was drawn among.
function stepRow(lang, step, i, name) {
  const chosen = step.top.findIndex(([id]) => id === step.id);
  const cands = step.top.map(([id, p], r) => {
    const cut = p === 0;
    return h('span', { class: `candidate${id === step.id ? ' is-chosen' : ''}${cut ? ' is-cut' : ''}`, 'data-id': String(id), title: cut ? t(lang, 'gen.cutTip', { p: step.before[r].toFixed(3) }) : null },
      h('span', { class: 'cand-token' }, name(id)), h('span', { class: 'cand-bar', style: { '--p': (cut ? step.before[r] : p).toFixed(4) } }),
      h('span', { class: 'cand-p' }, (cut ? step.before[r] : p).toFixed(2)));
  });
  const kept = step.sampled && step.kept < step.vocab ? t(lang, 'gen.kept', { k: step.kept, v: step.vocab }) : '';
  return h('li', { class: 'gen-step', 'data-step': String(i), 'data-mode': step.sampled ? 'sampled' : 'greedy' },
    h('span', { class: 'gen-token' }, visibleToken(step.token)),
    h('span', { class: 'gen-how' }, t(lang, step.sampled ? 'gen.sampledP' : 'gen.greedyP', { p: step.p.toFixed(3) })),
    h('span', { class: 'candidates' }, cands, chosen < 0 ? h('span', { class: 'candidate is-chosen' }, visibleToken(step.token)) : null),
    kept ? h('span', { class: 'gen-kept' }, kept) : null);
}

export function generateView(state, actions) {
  const { lang } = state;
  const fields = {};
  const controls = ['temperature', 'topK', 'topP', 'seed'].map((key) => {
    const [label, input] = numberField(lang, key, state, actions);
    fields[key] = input;
    return label;
  });
  const [countLabel, count] = numberField(lang, 'tokens', state, actions);
  fields.tokens = count;
  const many = h('button', { type: 'button', class: 'gen-btn', 'data-generate': 'n', onclick: () => actions.generate(actions.sampling().tokens) });
  const one = h('button', { type: 'button', class: 'gen-btn', 'data-generate': '1', onclick: () => actions.generate(1) });
  const mode = h('p', { class: 'gen-mode' });
  const error = h('p', { class: 'field-error gen-error', role: 'alert' });
  const list = h('ol', { class: 'gen-steps', 'aria-live': 'polite' });
  const empty = h('p', { class: 'hint' }, t(lang, 'gen.none'));
  // A greedy continuation of real text that loops: said so, with the way out a click away.
  const loopText = h('span', {});
  const resample = h('button', { type: 'button', class: 'gen-btn', 'data-resample': '', onclick: () => actions.resample(LANGUAGE_SAMPLING) });
  const loop = h('p', { class: 'gen-loop', 'data-loop': '', hidden: true }, loopText, resample);
  const view = h('div', { class: 'generate', 'data-part': 'generate' },
    h('h3', { class: 'part-title' }, t(lang, 'gen.title')),
    h('p', { class: 'hint' }, t(lang, 'gen.text')),
    h('div', { class: 'gen-controls' }, one, countLabel, many, ...controls),
    mode, error, loop, empty, list);
  let rows = 0;
  let listed = null; // the id of the generation whose steps the list holds
  const looked = { key: null, span: null }; // the loop found in the continuation shown, once it is done

  function fill(s) {
    if (s.lang !== lang) return false;
    for (const [key, input] of Object.entries(fields)) if (document.activeElement !== input && Number(input.value) !== s.sampling[key]) input.value = String(s.sampling[key]);
    setText(many, t(lang, 'gen.many', { n: s.sampling.tokens }));
    setText(one, t(lang, 'gen.one'));
    const greedy = s.sampling.temperature === 0;
    setText(mode, t(lang, greedy ? 'gen.modeGreedy' : 'gen.modeSampled', s.sampling));
    setAttr(mode, 'data-mode', greedy ? 'greedy' : 'sampled');
    const g = s.generation;
    const busy = Boolean(g && g.running);
    for (const button of [many, one]) setPressable(button, !busy);
    setText(error, g && g.error ? localMessage(g.error, lang) : '');
    const shown = shownGeneration(s);
    if (!shown || shown.id !== listed) {
      list.replaceChildren();
      rows = 0;
      listed = shown ? shown.id : null;
    }
    const vocab = s.result.config.vocabSize;
    const name = idNamer(s.result, actions);
    for (; shown && rows < shown.steps.length; rows++) list.append(stepRow(lang, { ...shown.steps[rows], vocab }, rows + 1, name));
    empty.hidden = rows > 0;
    // looked for once a continuation is done (each fill would search its runs again: ~n³ for n steps)
    const done = shown && !shown.running ? `${shown.id} ${shown.steps.length}` : null;
    if (done !== looked.key) {
      const greedyText = done && onRealText(s.result.config) && shown.steps.every((step) => !step.sampled);
      looked.key = done;
      looked.span = greedyText ? repeatedSpan(shown.steps.map((step) => step.token)) : null;
    }
    const span = looked.span;
    // The note goes once it is answered (sampled from the prompt): its button's focus goes to Generate.
    if (!span && !loop.hidden && loop.contains(view.getRootNode().activeElement)) many.focus({ preventScroll: true });
    loop.hidden = !span;
    if (span) {
      setText(loopText, t(lang, 'gen.loop', { span: span.map(visibleToken).join(s.result.config.tokenizer === 'words' ? ' ' : '') }));
      setText(resample, t(lang, 'gen.resample', { n: shown.steps.length, ...LANGUAGE_SAMPLING }));
    }
    setAttr(view, 'data-steps', String(rows));
    return true;
  }
  fill(state);
  return live(view, fill);
}
