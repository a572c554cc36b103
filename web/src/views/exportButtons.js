// The PNG / SVG buttons of a view, and the parts every figure shares (token labels, provenance line).
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { exportFigure } from '../export/files.js';
import { tokenLabels } from './matrix.js';

export function plainText(html) {
  const div = document.createElement('div');
  div.innerHTML = html || '';
  return div.textContent;
}

// What every figure of the current run carries: the token labels and a line saying what made it.
export function figureBase(state) {
  const { result } = state;
  const c = result.config;
  const footer = `“${result.text}” · d_model ${c.dModel} · heads ${c.heads} · kv_heads ${c.kvHeads} · seed ${c.seed}${c.causal ? ' · causal' : ''} · multi-head attention, stage by stage`;
  return { rowLabels: tokenLabels(result.tokens), footer };
}

// makeSpec() builds the figure only when a button is pressed.
export function exportButtons(lang, name, makeSpec) {
  const button = (format) =>
    h('button', {
      type: 'button',
      class: 'export-btn',
      'data-export': format,
      title: t(lang, 'exportFigure', { name, format: format.toUpperCase() }),
      'aria-label': t(lang, 'exportFigure', { name, format: format.toUpperCase() }),
      onclick: (ev) => {
        ev.stopPropagation();
        exportFigure(makeSpec(), format, ev.currentTarget);
      },
    }, format.toUpperCase());
  return h('span', { class: 'export' }, button('png'), button('svg'));
}
