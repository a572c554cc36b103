// The PNG / SVG buttons of a view, and the parts every figure shares (token labels, provenance line).
import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { exportFigure } from '../../export/files.js';
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

// makeSpec() builds the figure only when a button is pressed.
export function exportButtons(lang, name, makeSpec) {
  const button = (format) =>
    h('button', {
      type: 'button',
      class: 'export-btn',
      'data-export': format,
      onclick: (ev) => {
        ev.stopPropagation();
        exportFigure(makeSpec(), format, ev.currentTarget);
      },
    }, format.toUpperCase());
  const span = h('span', { class: 'export' }, button('png'), button('svg'));
  relabelExport(span, lang, name);
  return span;
}

// The buttons' titles and labels for another figure name (the enlarged head changed).
export function relabelExport(span, lang, name) {
  for (const b of span.querySelectorAll('[data-export]')) {
    const label = t(lang, 'exportFigure', { name, format: b.dataset.export.toUpperCase() });
    b.title = label;
    b.setAttribute('aria-label', label);
  }
}
