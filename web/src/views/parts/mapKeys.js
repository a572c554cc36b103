// The keyboard on a heatmap: the canvas is one tab stop (a map can be 512 cells wide, too many for a
// node each); the arrow keys move a cursor cell by cell, Home/End to the row's ends, Ctrl+Home/End
// to the corners. The cursor is a ring over the canvas (shown while it has keyboard focus) and what
// the cell holds is said in a polite live region beside it, since a canvas has no cells to point
// aria-activedescendant at. place(ring, r, c) puts the ring over a cell (the two kinds of map lay
// their cells out differently).
import { h, setText } from '../../dom.js';
import { cellReadout } from './heatmapFrame.js';
import { t } from '../../i18n.js';

const MOVES = {
  ArrowLeft: (r, c) => [r, c - 1],
  ArrowRight: (r, c) => [r, c + 1],
  ArrowUp: (r, c) => [r - 1, c],
  ArrowDown: (r, c) => [r + 1, c],
  Home: (r, c, o, ctrl) => [ctrl ? 0 : r, 0],
  End: (r, c, o, ctrl) => [ctrl ? o.rows - 1 : r, o.cols - 1],
};

const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));

// Returns [ring, readout]: the caller puts the ring after the canvas (the CSS shows it on the
// canvas's :focus-visible) and the readout anywhere near, outside any role="img".
export function keysOn(canvas, o, place) {
  canvas.tabIndex = 0;
  canvas.setAttribute('aria-roledescription', t(o.lang, 'map.role'));
  const ring = h('div', { class: 'hm-cursor', 'aria-hidden': 'true' });
  const readout = h('div', { class: 'visually-hidden', 'aria-live': 'polite', 'data-map-readout': '' });
  o.cursor = [0, 0];
  const show = () => {
    const [r, c] = (o.cursor = [clamp(o.cursor[0], o.rows), clamp(o.cursor[1], o.cols)]); // T may have shrunk
    place(ring, r, c);
    setText(readout, cellReadout(o, r, c));
  };
  canvas.addEventListener('focus', show);
  // Every key it moves by is kept from the page's ←/→ (nav.js, main.js), at an edge too: a reader
  // walking a row must not change the stage by going one cell too far.
  canvas.addEventListener('keydown', (ev) => {
    const move = MOVES[ev.key];
    if (!move || ev.altKey || ev.metaKey || ev.defaultPrevented) return;
    ev.preventDefault();
    o.cursor = move(o.cursor[0], o.cursor[1], o, ev.ctrlKey);
    show();
  });
  return [ring, readout];
}
