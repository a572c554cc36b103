// A demo's attributes and its store kept in step, both ways: attributes are read into the store
// (several set in a row become one run), and what the learner changes (controls, stage, head,
// language) is written back, so the attributes always say what is shown; index.html turns them
// into its permalink.
import { parse, parseLang, openingModel, headListText, isSized, SETTING_ATTRS, SAMPLING_ATTRS, SAMPLING_DEFAULTS } from './attributes.js';
import { sameValue, sameSettings } from './demoState.js';
import { sameSampling, shownGeneration } from './generation.js';
import { defaultLang } from './i18n.js';
import { hasLanguage } from './languages.js';

export class AttributeSync {
  // el: the element whose attributes these are. store: its store. engine: () -> the Engine once
  // the core has loaded, null before. request: (changedKey) -> asks the runner for a run.
  // sources: the demo's ModelSources, which fetch model= and weights=.
  constructor(el, store, { engine, request, sources }) {
    this._failedLanguage = null; // {lang, message}: the last language whose strings could not come
    this._el = el;
    this._store = store;
    this._engine = engine;
    this._request = request;
    this._sources = sources;
    this._queued = false;
    this._reflecting = false;
    this._opened = false; // the opening model has been decided (_writeOpeningModel)
    this._wantHead = 0; // the head attribute, shown once a model has that many heads
  }

  // An attribute changed (attributeChangedCallback); the ones written back here are already shown.
  // Several attributes set in a row become one run.
  attributeChanged() {
    if (this._reflecting || this._queued) return;
    this._queued = true;
    queueMicrotask(() => {
      if (!this._queued) return; // applied meanwhile
      this.apply();
    });
  }

  // The language the attributes ask for: lang, else the page's around the element.
  _askedLang(p) {
    return p.view.lang || this._inheritedLang();
  }

  _inheritedLang() {
    const holder = this._el.parentElement && this._el.parentElement.closest('[lang]');
    return (holder && parseLang(holder.getAttribute('lang'))) || defaultLang();
  }

  apply() {
    this._queued = false;
    const store = this._store;
    const engine = this._engine();
    this._writeOpeningModel();
    const p = parse((name) => this._el.getAttribute(name));
    this._wantHead = p.view.head;
    // A stage no model has is refused once the core's table is here (which ones this model walks is
    // checked when it has run).
    const table = engine && engine.mha.stageTable.stages.map((s) => s.id);
    let stage = p.view.stage;
    if (table && !table.includes(stage)) {
      p.errors.push({ attribute: 'stage', message: `stage must be one of ${table.join(', ')}; got '${stage}'` });
      stage = store.state.stage;
    }
    const lang = this._askedLang(p);
    const patch = {
      lang,
      stage,
      attendMode: p.view.show,
      controls: p.view.controls,
      attrErrors: [...p.errors, ...this._headError(store.state.result), ...this._languageError(lang)],
    };
    if (store.state.result && p.view.head < store.state.result.config.heads) patch.head = p.view.head;
    // A continuation on screen: its text attribute is the prompt and generate its steps (reflect). The
    // same continuation keeps its text; another one runs the prompt, then draws its tokens (replay).
    const shown = shownGeneration(store.state);
    if (p.generate && shown && shown.prompt === p.settings.text && shown.steps.length === p.generate && sameSampling(shown.sampling, p.sampling)) {
      p.settings.text = store.state.settings.text;
    } else if (p.generate && store.state.replay !== p.generate) patch.replay = p.generate;
    if (!sameSampling(p.sampling, store.state.sampling)) patch.sampling = { ...store.state.sampling, ...p.sampling };
    const changedKey = Object.keys(SETTING_ATTRS).map((a) => SETTING_ATTRS[a]).find((k) => !sameValue(p.settings[k], store.state.settings[k]));
    const settingsChanged = changedKey !== undefined;
    if (settingsChanged) patch.settings = p.settings;
    const w = store.state.weights;
    // Weights opened from a file have no attribute to say so: only a weights attribute replaces them.
    const weightsChanged = !(w && w.file && !p.weights) &&
      ((p.weights && p.weights.url) !== (w && w.url) || (p.weights && w && (p.weights.layout !== w.layout || p.weights.layer !== w.layer)));
    if (weightsChanged) patch.weights = p.weights ? { ...p.weights, bytes: null } : null;
    store.set(patch);
    if (p.settings.modelUrl && p.settings.modelUrl !== this._sources.modelUrl && engine) this._sources.fetchModel(p.settings.modelUrl);
    if (weightsChanged && p.weights) this._sources.fetchWeights(p.weights);
    else if (settingsChanged || weightsChanged || patch.replay) this._request(changedKey || null); // a replay waits for a run of its text
  }

  // Once, at the first apply: a demo that names no model opens on its language's real-text model,
  // written into its attribute so that the permalink, the menu and a later change of language all
  // read one model (switching to 中文 translates the page; it does not swap the model).
  _writeOpeningModel() {
    if (this._opened) return;
    this._opened = true;
    const get = (name) => this._el.getAttribute(name);
    const model = openingModel(get, this._askedLang(parse(get)));
    if (!model) return;
    this._reflecting = true;
    try {
      this._el.setAttribute('model', model);
    } finally {
      this._reflecting = false;
    }
  }

  // A language whose strings could not come (its script beside the widget): said for as long as it
  // is the one asked for; the demo stays in the language it had.
  languageFailed(lang, message) {
    this._failedLanguage = { lang, message };
    const others = this._store.state.attrErrors.filter((e) => e.attribute !== 'lang');
    this._store.set({ attrErrors: [...others, ...this._languageError(lang)] });
  }

  _languageError(lang) {
    const failed = this._failedLanguage;
    return failed && failed.lang === lang ? [{ attribute: 'lang', message: failed.message }] : [];
  }

  _headError(result) {
    if (!result || this._wantHead < result.config.heads) return [];
    const n = result.config.heads;
    return [{ attribute: 'head', message: `head ${this._wantHead} does not exist: there are ${n} heads, 0 to ${n - 1}` }];
  }

  // A new result: the head attribute is said to be out of range, or (now that it fits) shown.
  resultArrived(state) {
    const extra = this._headError(state.result);
    const others = state.attrErrors.filter((e) => e.attribute !== 'head');
    if (extra.length || others.length !== state.attrErrors.length) this._store.set({ attrErrors: [...others, ...extra] });
    if (!extra.length && this._wantHead !== state.head && this._wantHead < state.result.config.heads) this._store.set({ head: this._wantHead });
  }

  // Writes what the learner changed back to the attributes (never while applying them).
  reflect(state) {
    if (this._queued) return;
    const el = this._el;
    const p = parse((name) => el.getAttribute(name));
    const writes = [];
    const shown = shownGeneration(state);
    const s = shown ? { ...state.settings, text: shown.prompt } : state.settings; // the text a continuation started from
    if (p.generate !== (shown ? shown.steps.length : 0)) writes.push(['generate', shown ? String(shown.steps.length) : null]);
    for (const [attribute, key] of Object.entries(SAMPLING_ATTRS)) {
      if (p.sampling[key] !== state.sampling[key]) writes.push([attribute, state.sampling[key] === SAMPLING_DEFAULTS[key] ? null : String(state.sampling[key])]);
    }
    // While a source is unavailable the attributes keep asking for it (a reload tries again); the
    // picture shows a fallback until the learner changes a setting (modelSources.js).
    if (state.result && Object.keys(state.errors).length === 0 && !state.unavailable && !sameSettings(p.settings, s)) {
      writes.push(['model', s.modelUrl || s.model], ['file', s.model === 'file' && !s.modelUrl ? s.file : null], ['text', s.text],
        ['ids', s.ids === null || s.ids === undefined ? null : s.ids], ['view-layer', s.layer === null ? null : String(s.layer)],
        ['ablate', s.switchedOff.length ? headListText(s.switchedOff) : null]);
      if (isSized(s.model)) writes.push(['d-model', String(s.dModel)], ['heads', String(s.heads)], ['kv-heads', String(s.kvHeads)], ['seed', String(s.seed)], ['causal', s.causal ? '' : null]);
      else writes.push(['d-model', null], ['kv-heads', null], ['seed', null], ['causal', null], ['heads', s.model === 'file' && Number.isInteger(s.heads) ? String(s.heads) : null]);
    }
    if (p.view.stage !== state.stage) writes.push(['stage', state.stage]);
    if (state.result && p.view.head !== state.head) {
      writes.push(['head', String(state.head)]);
      this._wantHead = state.head;
    }
    if (p.view.show !== state.attendMode) writes.push(['show', state.attendMode]);
    // A language on its way (or that could not come) is still the one asked for: the attribute keeps it.
    const askedLang = this._askedLang(p);
    if (askedLang !== state.lang && hasLanguage(askedLang)) writes.push(['lang', state.lang]);
    if (!writes.length) return;
    this._reflecting = true;
    try {
      for (const [name, value] of writes) {
        if (value === null) el.removeAttribute(name);
        else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
      }
    } finally {
      this._reflecting = false;
    }
  }
}
