// The PNG / SVG buttons of a view, and the parts every figure shares (token labels, provenance line).
import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { partReady } from '../../sharedModule.js';
import { partScript } from '../../parts.js';
import { tokenLabels } from '../../format.js';
import { footerText } from '../../export/provenance.js';

export function plainText(html) {
  const div = document.createElement('div');
  div.innerHTML = html || '';
  return div.textContent;
}

// What every figure of the current run carries: the token labels and a line saying what made it.
export function figureBase(state) {
  return { rowLabels: tokenLabels(state.result.tokens), footer: footerText(state) };
}

// A download button's work, run by the widget's part 'downloads' (parts.js), which loads at the first
// press; without it, the button says which file is missing, in `lang`, until it is labelled again.
export function whenDownloads(button, lang, run) {
  partReady('downloads').then(run, () => {
    const said = t(lang, 'downloadMissing', { file: partScript('downloads') });
    button.title = said;
    button.setAttribute('aria-label', said);
    button.dataset.missing = '';
  });
}

// makeSpec() builds the figure only when a button is pressed (of the state shown then).
export function exportButtons(lang, name, makeSpec) {
  const button = (format) =>
    h('button', {
      type: 'button',
      class: 'export-btn',
      'data-export': format,
      onclick: (ev) => {
        ev.stopPropagation();
        const spec = makeSpec();
        const node = ev.currentTarget;
        whenDownloads(node, span.dataset.lang, (part) => part.exportFigure(spec, format, node));
      },
    }, format.toUpperCase());
  const span = h('span', { class: 'export' }, button('png'), button('svg'));
  relabelExport(span, lang, name);
  return span;
}

// The buttons' titles and labels for another figure name (the enlarged head changed).
export function relabelExport(span, lang, name) {
  span.dataset.lang = lang;
  for (const b of span.querySelectorAll('[data-export]')) {
    delete b.dataset.missing;
    const label = t(lang, 'exportFigure', { name, format: b.dataset.export.toUpperCase() });
    b.title = label;
    b.setAttribute('aria-label', label);
  }
}
