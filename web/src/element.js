// <mha-demo>: the whole explorer as a custom element. Attributes in, a picture in its own shadow
// root out; several on one page share one WebAssembly module but each has its own model and store.
//   events: stagechange {stage}, error {message, attribute},
//           trainprogress {step, loss, stepsPerSecond, induction, phaseStep, heads: [{layer, head, previousToken, induction, label}]},
//           trainend {step, loss, reason: 'paused' | 'done' | 'reset'},
//           sweepprogress {index, heads, step, steps, total}, sweepend {rows, reason: 'done' | 'cancelled' | 'error'}
//   API: el.ready (first frame drawn, the widget's parts it shows there: parts.js), el.state, el.goTo(stage), el.next(), el.prev(), el.focusStage(),
//        el.train() (start or resume), el.pause(), el.resetTraining(seed), el.training (its state),
//        el.runHeadSweep({heads, steps, seed}) -> Promise of [{heads, dHead, parameters, accuracy, perReadout, …}],
//        el.cancelHeadSweep()
//        el.generate(count) (tokens drawn after the text, at the predict stage's settings)
// Learner edits (controls, stage, head, language) are written back to the attributes
// (attributeSync.js); files and URLs of models are opened in modelSources.js.
import css from './widget.css';
import { headColorCss } from './views/parts/colors.js';
import { h, clear } from './dom.js';
import { createStore } from './store.js';
import { initialState } from './demoState.js';
import { t } from './i18n.js';
import catalog from './catalog.js';
import { createAnalyses } from './analyses.js';
import { createRunner } from './runner.js';
import { createGeneration, shownGeneration } from './generation.js';
import { createWorkerClient } from './workerClient.js';
import { lazyWorker } from './lazyWorker.js';
import { partScript } from './parts.js';
import { messageOf, storedError } from './messages.js';
import { isSized, ALL_ATTRS, ATTR_OF, MODEL_KINDS, recorded, hasImportance } from './attributes.js';
import { sharedModule, trainedBytes, workerURLMaker, languageReady, newEngine, partReady, gradientsWorkerURL, wholeModule } from './sharedModule.js';
import { partMissing } from './views/parts/fromPart.js';
import { hasLanguage } from './languages.js';
import { AttributeSync } from './attributeSync.js';
import { ModelSources } from './modelSources.js';
import { stageIdsOf } from './stages.js';
import { mountControls } from './views/chrome/controls.js';
import { mountPipeline } from './views/chrome/pipeline.js';
import { mountNav } from './views/chrome/nav.js';
import { mountSections, stepsKey } from './views/chrome/sections.js';
import { stepsOf, partsDrawn } from './steps.js';
import { mountStatus } from './views/chrome/status.js';
import { renderProblems } from './views/chrome/problems.js';
import { hideTip } from './views/parts/tooltip.js';

// performance marks (first one wins): module loaded, first result, first frame painted with it.
const mark = (name) => performance.getEntriesByName(name).length || performance.mark(name);
const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
const afterNextFrame = (fn) => requestAnimationFrame(() => setTimeout(fn, 0));

// A store view whose subscriptions end together (when the controls are rebuilt).
function scoped(store) {
  const unsubscribers = [];
  return {
    get state() {
      return store.state;
    },
    set: (patch) => store.set(patch),
    subscribe(fn) {
      const off = store.subscribe(fn);
      unsubscribers.push(off);
      return off;
    },
    onEnd(fn) {
      unsubscribers.push(fn);
    },
    end() {
      for (const off of unsubscribers) off();
    },
  };
}

// What sticks to the top as the page scrolls (the header; on a short or narrow screen the stage strip
// alone: widget.css) is measured into the frame's --mha-header, and the frame's data-sticky says which,
// so that what is focused or scrolled to lands below it, never under it (WCAG 2.4.11, focus not
// obscured: a head's switch reached with Shift+Tab stayed under the strip at 390 px).
function watchHeader(frame, top, pipeline, store) {
  const measure = () => {
    const sticky = [top, pipeline].find((x) => x.offsetHeight > 0 && getComputedStyle(x).position === 'sticky');
    const height = `${sticky ? sticky.offsetHeight : 0}px`;
    const which = sticky === top ? 'top' : sticky ? 'pipeline' : '';
    // written only when it changes: every element of the demo inherits the property
    if (frame.style.getPropertyValue('--mha-header') !== height) frame.style.setProperty('--mha-header', height);
    if (frame.dataset.sticky !== which) frame.dataset.sticky = which;
  };
  measure();
  if (typeof ResizeObserver !== 'function') return;
  const observer = new ResizeObserver(measure);
  observer.observe(top);
  observer.observe(pipeline);
  store.onEnd(() => observer.disconnect());
}

export class MhaDemo extends HTMLElement {
  static get observedAttributes() {
    return ALL_ATTRS;
  }

  constructor() {
    super();
    this._shadow = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = css + headColorCss();
    this._frame = h('div', { class: 'mha', part: 'frame' });
    this._shadow.append(style, this._frame);
    // A language whose strings are not here yet (the widget carries English; languages.js) is shown
    // once they have come; until then the demo stays in the language it had.
    this._languageLoading = null;
    this._store = createStore(initialState(), {
      lang: (lang) => {
        if (hasLanguage(lang)) return null;
        const loading = languageReady(lang);
        loading.catch((e) => this._attributes.languageFailed(lang, e.message));
        return (this._languageLoading = loading);
      },
    });
    this._engine = null;
    const deps = {
      engine: () => this._engine,
      request: (changedKey) => this._runner.request(changedKey),
      failReady: (error) => this._failReady(error),
    };
    this._sources = new ModelSources(this._store, deps);
    this._attributes = new AttributeSync(this, this._store, { ...deps, sources: this._sources });
    this._workerURL = workerURLMaker(); // null: no run worker (every run on the main thread), no training panel
    this._worker = this._workerURL ? createWorkerClient(this._workerURL) : null;
    const engine = {
      run: (settings) => this._engine.run(settings, this._sources.weightsFor()),
      runWorked: (causal) => this._engine.runWorked(causal),
      isMhaError: (e) => this._engine.isMhaError(e),
    };
    if (this._worker) engine.runAsync = (settings) => this._worker.run(settings, this._sources.workerSource(settings));
    this._runner = createRunner(this._store, engine, () => this._engine !== null && !this._sources.pending, (e) => this._sources.runFailed(e));
    this._generation = createGeneration(this._store, deps);
    this._scope = null;
    this._started = false;
    this._reported = new Set();
    this.ready = new Promise((resolve, reject) => {
      this._resolveReady = resolve;
      this._rejectReady = reject;
    });
    this.ready.catch(() => {}); // the element shows what went wrong
    this._store.subscribe((state, changed) => this._onChange(state, changed));
  }

  get state() {
    return this._store.state;
  }

  // The stages of the model shown (every one while nothing has run yet).
  get stages() {
    return stageIdsOf(this._store.state.result);
  }

  // Starts or resumes training in a worker (views/chrome/train.js, whose part loads first if it has
  // not): the recipe of the model shown, or {task}, a recipe of the panel's menu (catalog.recipes'
  // keys: 'tang' the Tang poems, 'induction', …), from its own seed. A key it does not take, or a task
  // it has not, is refused naming them rather than trained without. Resolves once it has started.
  train(options = {}) {
    const tasks = Object.keys(catalog.recipes);
    const unknown = Object.keys(options).filter((key) => key !== 'task');
    if (unknown.length) throw new TypeError(`el.train() takes {task}, not ${unknown.join(', ')}`);
    if (options.task !== undefined && !tasks.includes(options.task)) throw new RangeError(`el.train({task}): '${options.task}' is not a recipe of the page; its recipes are ${tasks.join(', ')}`);
    if (!this._training) return Promise.reject(new Error('this demo has no Web Worker to train in (controls="full" and a browser with workers)'));
    return this._training.load().then((training) => {
      if (options.task !== undefined) training.choose(options.task);
      training.start();
    });
  }

  pause() {
    const training = this._training && this._training.controller;
    if (training) training.pause();
  }

  resetTraining(seed) {
    const training = this._training && this._training.controller;
    if (training) training.reset(seed);
  }

  // The head-count experiment (views/chrome/sweep.js): the recall recipe trained at each head count in
  // a worker of its own. Resolves to the rows; rejects when cancelled or when this demo has no worker.
  runHeadSweep(options = {}) {
    if (!this._sweep) return Promise.reject(new Error('this demo has no Web Worker to train in (controls="full" and a browser with workers)'));
    return this._sweep.load().then((sweep) => sweep.run(options));
  }

  cancelHeadSweep() {
    const sweep = this._sweep && this._sweep.controller;
    if (sweep) sweep.cancel();
  }

  // Opens a model from a File (or Blob with a name), or from several: a checkpoint with GPT-2's tokenizer
  // files beside it; see modelSources.js. Resolves to {name, layout, kind, tokenizer}.
  openFile(file) {
    return this._sources.openFile(file);
  }

  // Bytes of WebAssembly memory this demo's core holds (its peak: it never shrinks); 0 before it loads.
  get memoryBytes() {
    return this._engine ? this._engine.mha.memoryBytes() : 0;
  }

  // Stops a file that is still opening (the Cancel button); the model shown stays.
  cancelOpen() {
    this._sources.cancelOpen();
  }

  get training() {
    const training = this._training && this._training.controller;
    return training ? training.state : null;
  }

  // Draws `count` more tokens (default: the Generate field's number) after the text, one per frame,
  // with the sampling settings of the predict stage (models with blocks).
  generate(count = this._store.state.sampling.tokens) {
    this._generation.run(count);
  }

  goTo(stage) {
    const ids = this.stages;
    if (!ids || ids.includes(stage)) this._store.set({ stage });
  }

  next() {
    this._step(1);
  }

  // Keyboard focus to the current stage's title (a page's "skip to the current stage" link).
  focusStage() {
    if (this._sections) this._sections.focusStage();
  }

  prev() {
    this._step(-1);
  }

  _step(delta) {
    const ids = this.stages || [];
    const i = ids.indexOf(this._store.state.stage) + delta;
    if (i >= 0 && i < ids.length) this.goTo(ids[i]);
  }

  connectedCallback() {
    this._attributes.apply(); // at once, so the first controls already show them
    if (this._started) {
      if (this._runner.unanswered) this._runner.request(null); // its worker was stopped
      return;
    }
    this._started = true;
    this._start();
  }

  // A demo taken off the page lets its worker go; a new one starts with the next run that needs one.
  disconnectedCallback() {
    this._generation.stop();
    if (this._worker) this._worker.stop();
    this._stopGradients();
    if (this._patcher) this._patcher.analyses.stop();
    this._patching = this._scoring = null; // their answers will not come: asked again when drawn
    this.pause();
    this.cancelHeadSweep();
  }

  attributeChangedCallback() {
    this._attributes.attributeChanged();
  }

  // Settles el.ready as failed, if it is not settled yet.
  _failReady(error) {
    if (!this._resolveReady) return;
    this._resolveReady = null;
    this._rejectReady(error);
  }

  async _start() {
    this._mountUI();
    let mha;
    const first = MODEL_KINDS.trained.shipped;
    const trained = trainedBytes(first); // beside the core; an Error (not a rejection) when there is none
    // The model the demo opens on, if another one the project trained (the Brown or Tang model): its
    // script starts loading beside the core too, not after it; its first run gets the same bytes.
    const opening = MODEL_KINDS[this._store.state.settings.model];
    if (opening && opening.shipped && opening.shipped !== first) trainedBytes(opening.shipped);
    try {
      mha = await sharedModule();
      const bytes = await trained;
      if (this._languageLoading) await this._languageLoading.catch(() => {}); // the first picture in its language
      this._shipped = { [first]: bytes };
    } catch (e) {
      const msg = String((e && e.message) || e).replace(/[<>&]/g, '');
      this._store.set({ status: 'idle', fatalHtml: true, fatal: t(this._store.state.lang, 'loadFailed', { msg }) });
      this._failReady(e);
      return;
    }
    mark('mha-demo:module');
    this._engine = newEngine(mha, this._shipped);
    this._attributes.apply(); // again, now that the stage table is known (and a model URL can be opened)
    this._reportErrors(this._store.state);
    this._runner.request(null);
  }

  // Builds the controls and sections for the current controls mode (again when it changes).
  _mountUI() {
    if (this._scope) {
      this._scope.end();
      this._sections && this._sections.destroy();
    }
    clear(this._frame);
    const store = scoped(this._store);
    this._scope = store;
    const mode = store.state.controls;
    this._mode = mode;
    this._frame.className = `mha mode-${mode}`;
    const goTo = (stage) => this.goTo(stage);

    const status = h('p', { id: 'status', class: 'status busy', role: 'status', 'aria-live': 'polite' });
    const progress = h('div', { class: 'progress', 'data-progress': '', hidden: true }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), h('span', { class: 'progress-text' }));
    const banner = h('div', { id: 'banner', class: 'banner', role: 'alert', hidden: true });
    const problems = h('div', { class: 'attr-errors', role: 'alert', hidden: true });
    const stages = h('div', { id: 'stages', class: 'stages' }, h('p', { class: 'placeholder' }, t(store.state.lang, 'loading')));
    mountStatus(status, banner, store, progress);

    if (mode !== 'none') {
      const prev = h('button', { id: 'prev', type: 'button', class: 'nav-btn' });
      const next = h('button', { id: 'next', type: 'button', class: 'nav-btn' });
      const list = h('div', { id: 'pipeline-list', class: 'pipe-scroll' });
      // A group, not a navigation landmark: a widget inside an article adds none of the page's
      // landmarks (several demos on a page would repeat them).
      const pipeline = h('div', { id: 'pipeline', class: 'pipeline', role: 'group' }, prev, list, next);
      mountPipeline(list, store, goTo);
      mountNav(prev, next, store, goTo, this._frame);
      const top = h('div', { class: 'top' });
      if (mode === 'full') {
        const controls = h('div', { id: 'controls', class: 'controls' });
        mountControls(controls, store, this._runner, (file) => this.openFile(file).catch(() => {}), () => this.cancelOpen());
        top.append(h('div', { class: 'topbar' }, controls), h('div', { class: 'statusbar' }, status), pipeline);
      } else {
        const lang = h('button', { id: 'lang', type: 'button', class: 'lang', onclick: () => store.set({ lang: store.state.lang === 'en' ? 'zh' : 'en' }) });
        const renderLang = (s) => {
          lang.textContent = t(s.lang, 'langButton');
          lang.setAttribute('aria-label', t(s.lang, 'langButtonLabel'));
        };
        renderLang(store.state);
        store.subscribe((s, changed) => changed.has('lang') && renderLang(s));
        pipeline.append(lang);
        top.append(pipeline);
      }
      const renderLabel = (s) => pipeline.setAttribute('aria-label', t(s.lang, 'pipelineLabel'));
      renderLabel(store.state);
      store.subscribe((s, changed) => changed.has('lang') && renderLabel(s));
      this._frame.append(top);
      watchHeader(this._frame, top, pipeline, store);
    }
    this._frame.append(banner, problems, progress, stages);
    // A model file dropped anywhere on the demo opens like the picker's.
    this._frame.addEventListener('dragover', (ev) => ev.preventDefault());
    this._frame.addEventListener('drop', (ev) => {
      const files = ev.dataTransfer && ev.dataTransfer.files;
      if (!files || !files.length) return;
      ev.preventDefault();
      this.openFile(files).catch(() => {});
    });
    if (mode === 'full' && this._workerURL) {
      this._mountTraining(store);
      this._mountSweep(store);
    }
    this._problems = problems;
    this._stagesEl = stages;
    this._sections = null;
    if (store.state.result) this._mountSections();
    renderProblems(this._problems, store.state);
  }

  // The panels outside the stage sections, each with a worker of its own and drawn by the widget's
  // part 'training' (parts.js), which loads when a panel is first shown or asked for: made once and
  // kept across stages and controls rebuilds (their workers go on), shown when show(state, controller)
  // says so (controller null while the part has not come).
  //   key: where the element keeps it, {root, controller, load() -> Promise of the controller}
  //   mount(part, root, fire): its controller, fire(type) an event's dispatcher
  _mountPanel(store, key, className, mount, show, onChange = () => {}) {
    if (!this[key]) {
      const root = h('div', { class: className });
      root.hidden = true;
      const fire = (type) => (detail) => this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
      const panel = { root, controller: null, ready: null };
      // Its workers train with the whole core, the part 'gradients', loaded when one first starts.
      const makeWorker = () => lazyWorker(gradientsWorkerURL().catch(() => {
        throw new Error(t(this._store.state.lang, 'partMissing', { file: partScript('gradients') }));
      }));
      panel.load = () => {
        panel.ready = panel.ready || partReady('training').then((part) => {
          panel.failed = false;
          root.replaceChildren(h('style', {}, part.css));
          panel.controller = mount(part, root, fire, makeWorker);
          panel.update(this._store.state);
          return panel.controller;
        }, (e) => {
          // Said where the panel would be, in the learner's language; asking again tries again.
          panel.ready = null;
          panel.failed = true;
          panel.sayMissing(this._store.state);
          root.hidden = false;
          throw e;
        });
        return panel.ready;
      };
      panel.sayMissing = (s) => panel.failed && root.replaceChildren(partMissing(s.lang, 'training'));
      this[key] = panel;
    }
    const panel = this[key];
    panel.update = (s) => {
      const shown = show(s, panel.controller);
      if (panel.controller) panel.root.hidden = !shown;
      else if (shown) panel.load().catch(() => {});
    };
    panel.update(store.state);
    store.subscribe((s, changed) => {
      if (changed.has('settings')) panel.update(s);
      if (!panel.controller) return void (changed.has('lang') && panel.sayMissing(s));
      if (changed.has('lang')) panel.controller.render();
      onChange(s, changed, panel.controller);
    });
    this._frame.append(panel.root);
    return panel;
  }

  // Train it yourself: shown with a model this project trained, whose recipe it trains unless told
  // otherwise, and kept once it has trained (Use this model shows an opened file).
  _mountTraining(store) {
    this._training = this._mountPanel(store, '_trainPanel', 'train-root', (part, root, fire, makeWorker) => part.mountTrainPanel(root, this._store, makeWorker, {
      onProgress: fire('trainprogress'),
      onEnd: fire('trainend'),
      onUse: (bytes, name) => this.openFile(new File([bytes], name)).catch(() => {}),
    }), (s, training) => {
      const recipe = MODEL_KINDS[s.settings.model] && MODEL_KINDS[s.settings.model].recipe;
      if (recipe && training) training.follow(recipe);
      else if (training) training.followRecord();
      return Boolean(recipe) || recorded(s.settings.model) || Boolean(training && training.state.step > 0);
    }, (s, changed, training) => changed.has('result') && training.probe());
  }

  // Why several heads?: shown with the recall model.
  _mountSweep(store) {
    this._sweep = this._mountPanel(store, '_sweepPanel', 'sweep-root', (part, root, fire, makeWorker) => part.mountSweepPanel(root, this._store, makeWorker, {
      onProgress: fire('sweepprogress'),
      onEnd: fire('sweepend'),
    }), (s) => s.settings.model === 'recall');
  }

  _mountSections() {
    clear(this._stagesEl);
    const actions = {
      setAttendMode: (mode) => this._store.set({ attendMode: mode }),
      selectHead: (hd) => this._store.set({ head: hd }),
      toggleHead: (layer, hd) => {
        const { switchedOff } = this._store.state.settings;
        const off = switchedOff.filter(([l, x]) => !(l === layer && x === hd));
        if (off.length === switchedOff.length) off.push([layer, hd]);
        actions.switchOff(off);
      },
      // Exactly these heads off (a step of the pruning curve), the others on.
      switchOff: (pairs) => {
        const off = pairs.map(([l, x]) => [l, x]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        this._store.set({ settings: { ...this._store.state.settings, switchedOff: off } });
        this._runner.request('switchedOff');
      },
      // Another layer of the model shown, as the layer menu picks it.
      showLayer: (layer) => {
        this._store.set({ settings: { ...this._store.state.settings, layer } });
        this._runner.request('layer');
      },
      pickPosition: (position) => this._store.set({ position }),
      generate: (count) => this.generate(count),
      sampling: () => this._store.state.sampling,
      setSampling: (patch) => this._store.set({ sampling: { ...this._store.state.sampling, ...patch } }),
      // The continuation shown, drawn again from its prompt with these sampling settings: its text runs,
      // then as many tokens are drawn (a link's replay).
      resample: (patch) => {
        const s = this._store.state;
        const g = shownGeneration(s);
        if (!g) return;
        this._generation.stop();
        this._store.set({ sampling: { ...s.sampling, ...patch }, settings: { ...s.settings, text: g.prompt }, replay: g.steps.length });
        this._runner.request('text');
      },
      kvCacheBytes: (size) => this._engine.mha.kvCacheBytes(size),
      // The circuits view's: the model shown's scores (once for each model) and a patching of its text.
      setCircuits: (patch) => this._store.set({ circuits: { ...this._store.state.circuits, ...patch } }),
      circuits: (compute) => this._engine.circuits(this._store.state.settings, compute),
      circuitsInWorker: (start) => this._circuitsInWorker(start),
      patch: (clean, corrupt) => this._engine.patch(this._store.state.settings, clean, corrupt),
      patchInBackground: (asked, clean, corrupt) => this._patchInBackground(asked, clean, corrupt),
      headCircuit: (ids, layer, head) => this._engine.headCircuit(this._store.state.settings, ids, layer, head),
      tokenText: (id) => this._engine.tokenText(this._store.state.settings, id),
    };
    const steps = stepsOf(this._store.state.result);
    this._sections = mountSections(this._stagesEl, this._scope, actions, steps);
    this._sections.update(this._store.state, new Set(['result', 'stage']));
  }

  _onChange(state, changed) {
    if (changed.has('controls') && this._scope && state.controls !== this._mode) this._mountUI();
    const otherKind = changed.has('result') && state.result && this._sections && this._sections.key !== stepsKey(stepsOf(state.result));
    if (changed.has('result') && state.result && this._scope && (!this._sections || otherKind)) {
      if (this._sections) this._sections.destroy();
      this._mountSections();
    } else if (this._sections) {
      if (changed.has('stage') || changed.has('result')) hideTip();
      this._sections.update(state, changed);
    }
    if (changed.has('result') && state.result) {
      const ids = stageIdsOf(state.result);
      if (!ids.includes(state.stage)) {
        // A stage the last model had (the learner switched models) gives way quietly; one that no
        // model of this kind has came from an attribute, and is said so.
        const known = this._lastStageIds && this._lastStageIds.includes(state.stage);
        const others = state.attrErrors.filter((e) => e.attribute !== 'stage');
        const message = `stage '${state.stage}' is not a stage of this model; its stages are ${ids.join(', ')}`;
        const fallback = ids.includes('attend') && !isSized(state.settings.model) ? 'attend' : ids[0];
        this._lastStageIds = ids;
        this._store.set({ stage: fallback, attrErrors: known ? others : [...others, { attribute: 'stage', message }] });
        return;
      }
      this._lastStageIds = ids;
    }
    if (changed.has('result')) {
      this._attributes.resultArrived(state);
      if (state.result) this._sources.resultShown(state);
    }
    if (changed.has('result') && state.result && hasImportance(state.settings.model) && this._engine.shownShippedBytes(state.settings)) this._analyse(state);
    // A link's continuation: its prompt has run, now its tokens are drawn again.
    if (changed.has('result') && state.result && state.replay && state.result.text === state.settings.text) {
      const count = state.replay;
      // the Generate field takes the continuation's length: its button says as many as were drawn
      this._store.set({ replay: 0, sampling: { ...state.sampling, tokens: count } });
      this._generation.replay(count);
    }
    if (['errors', 'attrErrors', 'unavailable', 'lang', 'result', 'controls'].some((k) => changed.has(k)) && this._problems) renderProblems(this._problems, state);
    if (changed.has('errors') || changed.has('attrErrors') || changed.has('unavailable')) this._reportErrors(state);
    // Nothing to show and nothing on its way: the placeholder does not promise it.
    if (!state.result && changed.has('status') && state.status === 'idle' && this._stagesEl) this._stagesEl.querySelector('.placeholder')?.replaceChildren();
    if (changed.has('stage') && state.result) this.dispatchEvent(new CustomEvent('stagechange', { detail: { stage: state.stage }, bubbles: true, composed: true }));
    if (['result', 'stage', 'head', 'attendMode', 'lang', 'sampling', 'generation'].some((k) => changed.has(k))) this._attributes.reflect(state);
    if (changed.has('result') && state.result && this._resolveReady) {
      const resolve = this._resolveReady;
      this._resolveReady = null;
      mark('mha-demo:result');
      // ...and the widget's parts it shows (the training panels, its stages' parts), once come (or said
      // why not): asked for now, so a stage further on draws at once.
      const panels = [this._training, this._sweep].filter((panel) => panel && panel.ready).map((panel) => panel.ready);
      const parts = [...panels, ...partsDrawn(state.result).map((name) => partReady(name))].map((p) => p.catch(() => {}));
      nextFrame().then(() => {
        mark('mha-demo:frame');
        return Promise.all(parts);
      }).then(() => resolve(this));
    }
    if (changed.has('fatal') && state.fatal) this._failReady(new Error(state.fatal));
    // A first run that fails settles ready too, rejected with the message the demo shows.
    const firstError = !state.result && Object.values(state.errors).find(Boolean);
    if (changed.has('errors') && firstError) this._failReady(new Error(messageOf(firstError)));
  }

  // A shipped model's gradient passes (analyses.js, in a worker of their own where there is one, for
  // the model shown only): its heads' importance on each text, the latest text's only, and the
  // induction model's pruning curve, once (a model of real text has its own, measured on held-out
  // text when it was trained: heldout.js).
  _analyse(state) {
    const { model } = state.settings;
    if (!this._gradients || this._gradients.model !== model) this._gradients = this._gradientPasses(state.settings);
    const { analyses } = this._gradients;
    if (model === 'trained' && !this._pruneAsked && !this._store.state.pruning) {
      this._pruneAsked = true;
      analyses.ask({ prune: true }).then(
        (curve) => this._store.set({ pruning: curve }),
        (e) => this._store.set({ pruning: { error: String((e && e.message) || e) } }),
      );
    }
    const { ids } = state.result;
    const wanted = (this._importanceFor = `${model}:${ids.join()}`);
    const known = this._store.state.importance;
    if (known && `${known.model}:${known.ids.join()}` === wanted) return;
    // Asked once the frame that shows the text's result is out: a real-text model's backward pass (24–30
    // ms) beside the main thread's drawing made that frame's work 18–20 ms where it was 12–13 (Tang,
    // npm run bench:page on 2 cores). Drawn after the next frame, in one of its own: drawing it with a
    // text's result (when the reply came before that frame, as it did when asked at once) made that
    // frame a text change's slowest (the heads table laid out again: ~12 ms of its CPU against ~7).
    afterNextFrame(() => {
      if (this._importanceFor !== wanted) return; // another text came meanwhile: its own is asked
      analyses.ask({ importance: ids }).then((importance) => afterNextFrame(() => {
        if (this._importanceFor === wanted) this._store.set({ importance: { model, ids, ...importance } });
      }), () => {}); // the panel keeps showing — for it
    });
  }

  // The gradient passes of the shipped model `settings` show, the previous model's let go: the whole
  // core (the part 'gradients') in a worker, else on the main thread.
  _gradientPasses(settings) {
    this._stopGradients();
    const shipped = MODEL_KINDS[settings.model].shipped;
    const makeWorker = this._workerURL ? () => lazyWorker(gradientsWorkerURL()) : null;
    const onMainThread = (message) => wholeModule().then((mha) => this._engine.analyseShipped(shipped, message, mha));
    return { model: settings.model, analyses: createAnalyses(makeWorker, this._engine.shownShippedBytes(settings), onMainThread) };
  }

  _stopGradients() {
    if (this._gradients) this._gradients.analyses.stop();
    this._gradients = null;
    this._importanceFor = null;
    this._pruneAsked = false; // a curve asked and not come will not come: asked again
  }

  // A patching of seconds (a real-text model's: hundreds of runs) off the main thread: a shipped
  // model's in a page worker of its own that loads its file (analyses.js), any other model's on the
  // main thread after the frame that says it is running. `asked` names the model, text and change;
  // the result (or error) lands in state.circuits.patched, for the view to draw.
  _patchInBackground(asked, clean, corrupt) {
    if (this._patching === asked) return;
    this._patching = asked;
    const { settings } = this._store.state;
    // (the settings ride along for the main thread's run; a worker has its model and ignores them)
    this._analysesOf(settings).ask({ patch: { clean, corrupt }, settings }).then((result) => (result ? { result } : null), (e) => ({ error: storedError(e) })).then((done) => {
      if (this._patching !== asked) return;
      if (!done) {
        this._patching = null; // superseded: asked again when drawn
        return;
      }
      this._store.set({ circuits: { ...this._store.state.circuits, patched: { asked, ...done } } });
    });
  }

  // The analyses of the model settings show: a shipped model's in a page worker of its own that loads
  // its file (analyses.js), any other model's on the main thread after the next frame.
  _analysesOf(settings) {
    const bytes = this._engine.shownShippedBytes(settings);
    const key = bytes ? settings.model : null;
    if (!this._patcher || this._patcher.key !== key) {
      if (this._patcher) this._patcher.analyses.stop();
      const makeWorker = bytes && this._workerURL ? () => new Worker(this._workerURL()) : null;
      // On the main thread: the scores of the model shown; a patching only for the settings it was
      // asked on (else superseded: null).
      const here = ({ patch, circuits, settings: s }) => (circuits ? this._engine.circuits(s, true)
        : s === this._store.state.settings ? this._engine.patch(s, patch.clean, patch.corrupt) : null);
      this._patcher = { key, analyses: createAnalyses(makeWorker, bytes, here) };
    }
    return this._patcher.analyses;
  }

  // A shipped model's circuits' scores (0.5 s in Chromium for a model of real text, which the first
  // picture need not wait for), from its analyses worker: the scores once they are here, null while
  // they come (the view says so, and is drawn again when state.circuits.scoresCame changes), undefined
  // for a model that is not shipped. start false: only what is here. A core error is kept as the
  // main thread's would be, and thrown each time the scores are asked for.
  _circuitsInWorker(start) {
    const { settings } = this._store.state;
    if (!this._engine.shownShippedBytes(settings)) return undefined;
    const known = this._engine.circuits(settings, false);
    if (known || !start || this._scoring === settings.model) return known;
    const scoring = (this._scoring = settings.model);
    this._analysesOf(settings).ask({ circuits: true, settings }).then((scores) => ({ scores }), (e) => ({ error: e })).then((value) => {
      if (this._scoring !== scoring) return;
      this._scoring = null;
      if (this._store.state.settings.model === scoring) this._engine.keepCircuits(this._store.state.settings, value);
      this._store.set({ circuits: { ...this._store.state.circuits, scoresCame: this._store.state.circuits.scoresCame + 1 } });
    });
    return null;
  }

  // One `error` event per new message.
  _reportErrors(state) {
    if (!this._engine) return; // reported once the module is loaded: the article's listeners exist by then
    const now = new Map();
    for (const e of state.attrErrors) now.set(`${e.attribute}\n${e.message}`, e);
    const failures = Object.entries(state.errors).map(([key, error]) => [ATTR_OF[key] || key, error]);
    if (state.unavailable) failures.push([state.unavailable.attribute, state.unavailable.message]);
    for (const [attribute, error] of failures) {
      const message = messageOf(error);
      now.set(`${attribute}\n${message}`, { attribute, message });
    }
    for (const [k, e] of now) {
      if (!this._reported.has(k)) {
        this.dispatchEvent(new CustomEvent('error', { detail: { message: e.message, attribute: e.attribute }, bubbles: true, composed: true }));
      }
    }
    this._reported = new Set(now.keys());
  }
}
