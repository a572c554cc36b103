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
