// The page around one <mha-demo> (index.html, and embed.html for iframes). Query parameters become
// the demo's attributes; on index.html the demo's attributes become the permalink again
// (history.replaceState once the page is idle after a change), and the page adds its title, the
// ←/→ keys, the "embed / share" dialog and window.mhaPage. Loads before build/mha-demo.js, so the demo starts
// with the linked settings.
import { fromQuery, parse, toAttributes, toQuery, elementSnippet, iframeSnippet, PERMALINK_ATTRS } from './attributes.js';
import { defaultLang, t } from './i18n.js';
import { models as TRAINED_MODELS } from '../../models/trained-models.json';

const demo = document.querySelector('mha-demo');
const isEmbed = document.body.dataset.page === 'embed';
const linked = fromQuery(location.search);
for (const [name, value] of linked) demo.setAttribute(name, value);
if (!linked.some(([name]) => name === 'lang') && !isEmbed) demo.setAttribute('lang', defaultLang());

// The demo's lang attribute first: it reflects the demo's language as it changes, while the demo's state
// may still hold its default when the demo first writes its attributes back (a zh link's page stayed English).
const currentLang = () => parse((n) => demo.getAttribute(n)).view.lang || (demo.state && demo.state.lang) || 'en';

// The demo's state as attribute pairs (its attributes hold the last valid settings).
function statePairs() {
  const p = parse((n) => demo.getAttribute(n));
  return toAttributes({ settings: p.settings, weights: p.weights, stage: p.view.stage, head: p.view.head, show: p.view.show, lang: p.view.lang, sampling: p.sampling, generate: p.generate });
}

// Writes only what differs: even an equal value written to <html lang> restyles and relays out the
// whole page (~4 ms), and each replaceState is a same-document navigation that costs ~2.5-5 ms and
// makes Chromium fetch and decode the favicon again. So the permalink is written once the changes
// have paused (URL_QUIET_MS) and the page is idle: not on every keystroke, and never in the time
// left before the frame that shows a change (where an idle callback asked for at once may run).
const URL_QUIET_MS = 300;
let urlTimer = null;
function setText(id, text) {
  const el = document.getElementById(id);
  if (el.textContent !== text) el.textContent = text;
}
function writeURL() {
  const query = toQuery(statePairs());
  if (location.search.slice(1) === query) return;
  try {
    history.replaceState(history.state, '', `${location.pathname}?${query}${location.hash}`);
  } catch {
    // some browsers refuse replaceState on file:// pages; the share dialog still has the link
  }
}
const whenIdle = typeof requestIdleCallback === 'function' ? (fn) => requestIdleCallback(fn, { timeout: 500 }) : (fn) => setTimeout(fn, 100);

function onAttributes() {
  const lang = currentLang();
  if (document.documentElement.lang !== lang) document.documentElement.lang = lang;
  if (isEmbed) return;
  const title = t(lang, 'appTitle');
  if (document.title !== title) document.title = title;
  setText('app-title', title);
  setText('app-subtitle', t(lang, 'appSubtitle'));
  setText('embed-open', t(lang, 'embedButton'));
  setText('skip-link', t(lang, 'skipToStage'));
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => whenIdle(writeURL), URL_QUIET_MS);
}
new MutationObserver(onAttributes).observe(demo, { attributes: true, attributeFilter: PERMALINK_ATTRS });
onAttributes();

function typing(ev) {
  const target = ev.composedPath()[0];
  const tag = target && target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (target && target.isContentEditable);
}

// In an article's iframe: the height of the demo, for a page that sizes the iframe to it (the
// README's embed section has the listener; web/examples/article.html uses it). A platform that strips
// the listener keeps its fixed height, and the demo scrolls inside it as before.
if (isEmbed && window.parent !== window) {
  let sent = 0;
  const tell = () => {
    const height = Math.ceil(document.querySelector('main').getBoundingClientRect().height);
    if (height === sent) return;
    sent = height;
    window.parent.postMessage({ type: 'mha-demo:height', height }, '*');
  };
  new ResizeObserver(tell).observe(document.querySelector('main'));
}

// ←/→ anywhere on the page step the demo (inside it, the demo handles them itself).
if (!isEmbed) {
  document.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || typing(ev) || document.querySelector('dialog[open]')) return;
    if (ev.key === 'ArrowRight') demo.next();
    else if (ev.key === 'ArrowLeft') demo.prev();
    else return;
    ev.preventDefault();
  });
  mountEmbedDialog();
  // The stage is inside the demo's shadow root, which no #fragment reaches: the demo focuses it.
  document.getElementById('skip-link').addEventListener('click', (ev) => {
    ev.preventDefault();
    demo.focusStage();
  });
}

// "Embed / share": the <mha-demo> and iframe snippets for what is on screen, with copy buttons.
// navigator.clipboard is missing on file:// pages and in some browsers: then the text is selected.
function mountEmbedDialog() {
  const dialog = document.getElementById('embed-dialog');
  const fields = {
    link: dialog.querySelector('[data-snippet="link"]'),
    element: dialog.querySelector('[data-snippet="element"]'),
    iframe: dialog.querySelector('[data-snippet="iframe"]'),
  };
  function fill() {
    const lang = currentLang();
    const pairs = statePairs();
    const here = location.href.split(/[?#]/)[0];
    // From disk, a file:/// address would work on this computer only: the snippets name the files to
    // copy beside the article instead, and the intro says so.
    const fromDisk = location.protocol === 'file:';
    const dir = fromDisk ? '' : here.replace(/[^/]*$/, '');
    fields.link.value = `${here}?${toQuery(pairs)}`;
    fields.element.value = elementSnippet(pairs, fromDisk ? 'mha-demo.js' : `${dir}build/mha-demo.js`);
    fields.iframe.value = iframeSnippet(pairs, `${dir}embed.html`, t(lang, 'appTitle'));
    const models = TRAINED_MODELS.map((m) => m.script).join(', '); // the files to copy beside mha-demo.js
    for (const el of dialog.querySelectorAll('[data-i18n]')) el.textContent = t(lang, el.dataset.i18n === 'embedIntro' && fromDisk ? 'embedIntroFile' : el.dataset.i18n, { models });
    // What a link cannot carry: a file opened from the learner's disk.
    const note = dialog.querySelector('[data-link-note]');
    const s = demo.state;
    const local = s.settings.model === 'file' && !s.settings.modelUrl ? ['linkNoFile', s.settings.file]
      : s.settings.model === 'random' && s.weights && s.weights.file ? ['linkNoWeights', s.weights.url] : null;
    note.hidden = !local;
    note.textContent = local ? t(lang, local[0], { name: local[1] }) : '';
  }
  document.getElementById('embed-open').addEventListener('click', () => {
    fill();
    dialog.showModal();
  });
  dialog.addEventListener('click', async (ev) => {
    const button = ev.target.closest('button');
    if (!button) {
      if (ev.target === dialog) dialog.close(); // a click on the backdrop
      return;
    }
    if (button.dataset.close !== undefined) {
      dialog.close();
      return;
    }
    const field = fields[button.dataset.copy];
    if (!field) return;
    const lang = currentLang();
    let copied = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(field.value);
        copied = true;
      }
    } catch {
      copied = false;
    }
    field.focus();
    field.select();
    const note = button.nextElementSibling;
    note.textContent = t(lang, copied ? 'copied' : 'copySelected');
  });
}

// Settles as the demo's ready does; a rejection is the demo's to show (it does), not an unhandled one.
const ready = customElements.whenDefined('mha-demo').then(() => demo.ready);
ready.catch(() => {});

window.mhaPage = {
  ready,
  get state() {
    return demo.state;
  },
  goTo: (stage) => demo.goTo(stage),
  demo,
};
