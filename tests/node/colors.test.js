// Every number drawn on a coloured cell (the tensor grids, the exported figures, the circuits
// tables) reads at WCAG AA: its ink against every colour of both scales is at least 4.5:1.
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { contrast } = require('../browser/vision.js');

const css = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;
const inkCss = (ink) => (ink === '#fff' ? 'rgb(255, 255, 255)' : ink === '#000' ? 'rgb(0, 0, 0)' : ink);

test('the ink on every colour of the diverging and sequential scales contrasts at least 4.5:1', async () => {
  const { colorOf, inkFor } = await import('../../web/src/views/parts/colors.js');
  for (const kind of ['diverging', 'sequential']) {
    const scale = { kind, max: 1 };
    for (let i = 0; i <= 510; i++) {
      const v = kind === 'diverging' ? i / 255 - 1 : i / 510;
      const ratio = contrast(inkCss(inkFor(v, scale)), css(colorOf(v, scale)));
      assert.ok(ratio >= 4.5, `${kind} ${v.toFixed(3)}: ${inkFor(v, scale)} on ${css(colorOf(v, scale))} is ${ratio.toFixed(2)}:1`);
    }
  }
});

test('inkOn takes white on dark colours and black on light ones', async () => {
  const { inkOn } = await import('../../web/src/views/parts/colors.js');
  assert.equal(inkOn(0, 0, 0), '#fff');
  assert.equal(inkOn(165, 30, 40), '#fff');
  assert.equal(inkOn(255, 255, 255), '#000');
  assert.equal(inkOn(247, 247, 245), '#000');
});

test('a map row coloured at once (fillRow) has lutIndex\'s colour for every value, NaN and no scale included', async () => {
  const { fillRow, lutIndex, lutOf } = await import('../../web/src/views/parts/colors.js');
  const values = [0, 1, -1, 0.5, -0.25, 2, -3, 1e-9, NaN, Infinity, -Infinity, 0.998, -0.002];
  for (let i = 0; i < 200; i++) values.push(Math.sin(i * 12.9898) * 1.3);
  const data = new Float32Array([7, ...values.flatMap((v) => [v, 99])]); // at 1, every other value
  for (const kind of ['diverging', 'sequential']) {
    for (const max of [1, 0.37, 0, -1, NaN]) {
      const scale = { kind, max };
      const lut = Uint32Array.from({ length: 256 }, (_, i) => 1000 + i); // a word naming its index
      const px = new Uint32Array(values.length + 2);
      fillRow(px, 1, data, 1, 2, values.length, scale, lut);
      values.forEach((v, c) => {
        const want = lutIndex(Math.fround(v), scale);
        assert.equal(px[1 + c], Number.isNaN(want) ? 0 : 1000 + want, `${kind}, max ${max}: ${v}`);
      });
      assert.equal(px[0], 0, 'nothing written before the row');
      assert.equal(px[values.length + 1], 0, 'nothing written after it');
      assert.ok(lutOf(scale).length === 768);
    }
  }
});

test('a map wider than its canvas is drawn from the column under each pixel\'s centre', async () => {
  const { pickedColumns } = await import('../../web/src/views/parts/mapCanvas.js');
  for (const [cols, W] of [[3003, 1100], [4002, 1187], [65, 64], [3003, 1]]) {
    const at = pickedColumns(cols, W);
    assert.equal(at.length, W);
    at.forEach((c, x) => {
      const centre = ((x + 0.5) * cols) / W;
      assert.ok(c <= centre && centre < c + 1, `${cols} columns on ${W} pixels: pixel ${x} shows column ${c}, its centre is at ${centre}`);
    });
  }
});
