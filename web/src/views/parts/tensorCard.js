// The frame around one displayed tensor: name, shape caption, what it is, the picture and its legend.
// Carries the data-tensor / data-shape attributes the tests and readers rely on.
import { h, setText } from '../../dom.js';
import { shapeText, shapeAttr } from '../../format.js';
import { exportButtons, figureBase, plainText } from './exportButtons.js';

// figure: {lang, state, note?, make() -> panels, scale, …} adds the PNG / SVG export buttons. The
// figure carries the card's own name, shape and caption, and its axis line unless a note is given.
export function tensorCard({ name, shape, caption, axis, body, legend, extraClass, figure }) {
  const current = { shape };
  const makeFigure = figure
    ? () => ({
        ...figureBase(figure.state),
        name,
        shape: current.shape,
        caption: plainText(caption),
        note: figure.note ?? axis,
        ...figure.make(),
      })
    : null;
  const shapeEl = h('span', { class: 'shape' }, shapeText(shape));
  const card = h(
    'figure',
    { class: `tensor${extraClass ? ` ${extraClass}` : ''}`, 'data-tensor': name, 'data-shape': shapeAttr(shape) },
    h(
      'figcaption',
      { class: 'tensor-head' },
      h('code', { class: 'tensor-name' }, name),
      shapeEl,
      caption ? h('span', { class: 'tensor-cap', html: caption }) : null,
      figure ? exportButtons(figure.lang, name, makeFigure) : null,
    ),
    body,
    h('div', { class: 'tensor-foot' }, axis ? h('span', { class: 'axis-note' }, axis) : null, legend || null),
  );
  cards.set(card, { current, shapeEl });
  return card;
}

const cards = new WeakMap(); // card -> {current, shapeEl}

// A card whose tensor changed shape and whose picture is drawn in place (the attend stage's head maps
// for another T): its shape caption, data-shape and figure follow.
export function setCardShape(card, shape) {
  const { current, shapeEl } = cards.get(card);
  current.shape = shape;
  setText(shapeEl, shapeText(shape));
  if (card.dataset.shape !== shapeAttr(shape)) card.dataset.shape = shapeAttr(shape);
}
