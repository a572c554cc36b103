// The cells a head's label is about (the core's analysis: heads[h].cells, [[row, key], …]) marked over
// its map: an SVG in the map's own units laid over the canvas, so it fits any T and any width, and
// never repaints the map. Empty or null cells take the marks away.
const SVG = 'http://www.w3.org/2000/svg';

export function markCells(plot, cells, T) {
  let svg = plot.querySelector(':scope > svg.type-cells');
  if (!cells || !cells.length) {
    if (svg) svg.remove();
    return;
  }
  if (!svg) {
    svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'type-cells');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('preserveAspectRatio', 'none');
    plot.append(svg);
  }
  svg.setAttribute('viewBox', `0 0 ${T} ${T}`);
  svg.replaceChildren(...cells.map(([row, key]) => {
    const rect = document.createElementNS(SVG, 'rect');
    rect.setAttribute('x', key);
    rect.setAttribute('y', row);
    rect.setAttribute('width', 1);
    rect.setAttribute('height', 1);
    return rect;
  }));
}
