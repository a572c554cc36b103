// The stage sections of one kind of model (steps.js stepsOf): title, explanation, formula and the stage's picture. Only the current
// one is visible, and only the current one is drawn when something changes: a new result, the
// language, or (for the attend stage) the head / weights-or-scores. The hidden ones are marked
// stale and keep their old DOM untouched (no style, layout or paint work for them on a change);
// a stale section is redrawn when it is navigated to, before it is shown, or when the page has
// been quiet for a while (no new result for QUIET_MS, then one section per idle callback), so
// every section holds the current tensors once the reader pauses.
import { h, clear, renew, keepFocus } from '../../dom.js';
import { t } from '../../i18n.js';
import { whenDownloads } from '../parts/exportButtons.js';
import { releaseCanvases } from '../parts/canvasRegistry.js';
import { later, watchLazy, unwatchLazy, withLazy } from '../parts/lazy.js';
import { causalControl } from '../../attributes.js';
import { FOLLOW_RESULT } from '../../demoState.js';

export const QUIET_MS = 1500;
// A change of only these (and of keys no section draws) is a new result, or what follows one: the
// parts out of view may take it after the frame.
const FROM_RESULT = new Set(['result', ...FOLLOW_RESULT]);

const idle = typeof requestIdleCallback === 'function'
  ? { request: (fn) => requestIdleCallback(fn), cancel: (id) => cancelIdleCallback(id) }
  : { request: (fn) => setTimeout(fn, 50), cancel: (id) => clearTimeout(id) };

// What a section's header text and its picture were drawn from: redrawn when any of them changed.
const textDeps = (state) => [state.result, state.lang];
// The update contract (steps.js): a body depends on the result, the language and the state keys
// its step lists in `depends`.
const bodyDeps = (step, state) => [state.result, state.lang, ...(step.depends || []).map((k) => state[k])];
// The stage ids a set of sections was mounted for.
export const stepsKey = (steps) => steps.map((s) => s.id).join();
const same = (a, b) => Boolean(a) && a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

// steps: stepsOf(result) for the kind of model shown; a result of another kind mounts anew.
export function mountSections(root, store, actions, steps) {
  const stageExport = (step, format, label) =>
    h('button', {
      type: 'button',
      class: 'export-btn',
      'data-export-stage': format,
      onclick: (ev) => {
        const { state } = store;
        const node = ev.currentTarget;
        if (state.result) whenDownloads(node, state.lang, (part) => part.exportStage(state, step.id, format, node));
      },
    }, label);

  const sections = steps.map((step, i) => {
    const kicker = h('p', { class: 'stage-kicker' });
    const title = h('h2', { class: 'stage-title', id: `title-${step.id}`, tabindex: '-1' }); // focusStage() and a stage change land here
    const exportLabel = h('span', { class: 'export-label' });
    const exports = h('div', { class: 'export stage-export' }, exportLabel, stageExport(step, 'csv', 'CSV'), stageExport(step, 'safetensors', 'safetensors'));
    const text = h('p', { class: 'stage-text' });
    const formula = h('div', { class: 'formula', role: 'math' });
    const body = h('div', { class: 'stage-body' });
    // A named group, not a region landmark: the page's landmarks are the page's (see the pipeline).
    const section = h('section', { 'data-stage': step.id, class: `stage fam-${step.family}`, role: 'group', 'aria-labelledby': `title-${step.id}` },
      h('header', { class: 'stage-head' }, h('div', {}, kicker, title), exports), text, formula, body);
    section.hidden = true;
    root.append(section);
    return { step, i, section, kicker, title, exports, exportLabel, text, formula, body, view: null, textFrom: null, bodyFrom: null, written: new Map() };
  });

  // The first tensor of a stage in this result (for telling per-layer stages from model-level ones).
  const firstTensor = (id, state) => Object.keys(state.result.tensors).find((n) => !n.startsWith('layers.') && state.result.tensors[n].stage === id);

  const stale = (s, state) => !same(s.textFrom, textDeps(state)) || !same(s.bodyFrom, bodyDeps(s.step, state));

  // Brings one section up to date with the state (writes only, no layout reads).
  function draw(s, state) {
    const td = textDeps(state);
    if (!same(s.textFrom, td)) {
      // A new result mostly leaves these texts as they were: only what differs is written, so an
      // unchanged paragraph is not laid out and its text shaped again.
      const ctx = { lang: state.lang, causalControl: causalControl(state), config: state.result.config, T: state.result.tokens.length, layer: state.result.layer, result: state.result };
      const perLayer = state.result.config.layers > 1 && state.result.tensors[`layers.${state.result.layer}.${firstTensor(s.step.id, state)}`];
      const where = { i: s.i + 1, n: sections.length, l: state.result.layer };
      const texts = [
        [s.kicker, 'textContent', t(state.lang, perLayer ? 'stepOfLayer' : 'stepOf', where)],
        [s.title, 'textContent', t(state.lang, 'numberedTitle', { i: s.i + 1, title: t(state.lang, s.step.title) })],
        [s.text, 'innerHTML', s.step.text(ctx)],
        [s.formula, 'innerHTML', s.step.formula(ctx)],
        [s.exportLabel, 'textContent', t(state.lang, 'exportStage')],
        ...[...s.exports.querySelectorAll('button')].map((b) => [b, 'title', t(state.lang, 'exportStageAs', { format: b.textContent })]),
      ];
      for (const [el, prop, value] of texts) {
        if (s.written.get(el) === value) continue;
        el[prop] = value;
        s.written.set(el, value);
      }
      s.textFrom = td;
    }
    const bd = bodyDeps(s.step, state);
    if (!same(s.bodyFrom, bd)) {
      if (s.step.parts) drawParts(s, state);
      else if (!renew(s.view, state)) {
        s.view = keepFocus(s.body, () => {
          const view = s.step.view(state, actions);
          clear(s.body);
          if (view) s.body.append(view);
          return view;
        });
      }
      s.bodyFrom = bd;
    }
  }

  // A stage drawn in parts ({key, make, lazy?} from step.parts): a part whose key is unchanged keeps
  // its DOM where it is untouched; a live part shows the new state in its DOM (renew); the others are
  // replaced where they are. When only the result changed, a lazy part scrolled out of view follows
  // a moment later (lazy.js withLazy): typing redraws what is seen within the frame.
  function drawParts(s, state) {
    const parts = s.step.parts(state, actions);
    if (!s.stack || !s.stack.isConnected || !s.partNodes || s.partNodes.length !== parts.length) {
      clear(s.body);
      s.stack = h('div', { class: 'stack' });
      s.partNodes = parts.map(() => ({ key: null, node: null }));
      s.body.append(s.stack);
    }
    parts.forEach((part, i) => {
      const old = s.partNodes[i];
      if (old.node && same(old.key, part.key)) return;
      const deferred = part.lazy && old.node && later(old.node, () => {
        // the latest state, if this section still shows these parts
        if (s.partNodes[i] === old && old.node.isConnected) placePart(s, i, s.step.parts(store.state, actions)[i], store.state);
      });
      if (!deferred) placePart(s, i, part, state);
    });
  }

  function placePart(s, i, part, state) {
    const old = s.partNodes[i];
    if (old.node && same(old.key, part.key)) return;
    if (old.node && renew(old.node, state)) {
      s.partNodes[i] = { key: part.key, node: old.node };
      return;
    }
    const node = keepFocus(old.node, () => {
      const made = part.make() || document.createComment('');
      if (old.node) {
        if (old.node.nodeType === 1) releaseCanvases(old.node);
        unwatchLazy(old.node);
        old.node.replaceWith(made);
      } else s.stack.append(made);
      return made;
    });
    if (part.lazy) watchLazy(node);
    s.partNodes[i] = { key: part.key, node };
  }

  // Stale hidden sections, drawn once the page is quiet: the neighbours of the current stage first.
  let quietTimer = null;
  let idleId = null;
  function cancelPrerender() {
    if (quietTimer !== null) clearTimeout(quietTimer);
    if (idleId !== null) idle.cancel(idleId);
    quietTimer = idleId = null;
  }
  function nextStale(state) {
    const at = Math.max(0, sections.findIndex((s) => s.step.id === state.stage));
    const order = [...sections].sort((a, b) => Math.abs(a.i - at) - Math.abs(b.i - at) || b.i - a.i);
    return order.find((s) => s.step.id !== state.stage && stale(s, state)) || null;
  }
  function prerenderStep() {
    idleId = idle.request(() => {
      idleId = null;
      const state = store.state;
      if (!state.result) return;
      const s = nextStale(state);
      if (!s) return;
      draw(s, state);
      prerenderStep();
    });
  }
  function schedulePrerender(state) {
    cancelPrerender();
    if (!nextStale(state)) return;
    quietTimer = setTimeout(() => {
      quietTimer = null;
      prerenderStep();
    }, QUIET_MS);
  }

  let lastStage = null;
  return {
    key: stepsKey(steps),
    update(state, changed) {
      if (!state.result) return;
      const cur = sections.find((s) => s.step.id === state.stage);
      const watched = new Set(['result', 'lang', 'stage', ...sections.flatMap((s) => s.step.depends || [])]);
      const relevant = [...changed].some((k) => watched.has(k)) || lastStage === null;
      if (!relevant) return;
      const newResult = [...changed].some((k) => FROM_RESULT.has(k)) && [...changed].every((k) => FROM_RESULT.has(k) || !watched.has(k));
      if (cur) withLazy(newResult, () => draw(cur, state)); // before it is shown, so it never flashes old content
      if (changed.has('stage') || lastStage === null) {
        for (const s of sections) {
          const hide = s !== cur;
          if (s.section.hidden !== hide) s.section.hidden = hide;
        }
        const prev = sections.find((s) => s.step.id === lastStage);
        // Focus inside the section just hidden would fall to <body>: the new stage's title takes it.
        const active = root.getRootNode().activeElement;
        if (cur && prev && prev !== cur && active && prev.section.contains(active)) cur.title.focus();
        if (prev && prev !== cur) prev.step.exit(prev.section);
        if (cur && lastStage !== null) cur.step.enter(cur.section);
        lastStage = state.stage;
      }
      if ([...changed].some((k) => k !== 'stage' && watched.has(k))) schedulePrerender(state);
    },
    // The skip link's target: the current stage's title, focused (and so scrolled to).
    focusStage() {
      const cur = sections.find((s) => s.step.id === store.state.stage);
      if (cur) cur.title.focus();
    },
    destroy() {
      cancelPrerender();
      for (const s of sections) for (const p of s.partNodes || []) unwatchLazy(p.node);
    },
  };
}
