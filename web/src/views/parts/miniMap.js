// A small attention map on a canvas of T × T pixels (the page scales it): one head's weights, the
// causal mask's cells above the diagonal in grey (a model without the mask: none). The training and
// sweep panels draw many of these, the heads table one a row.
import { lutOf, lutIndex } from './colors.js';

const SEQUENTIAL = { kind: 'sequential', max: 1 };

// data: (heads, T, T) weights; offset: where this head's map starts.
export function drawMiniMap(canvas, data, offset, T, causal = true) {
  if (canvas.width !== T) canvas.width = canvas.height = T;
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(T, T);
  const lut = lutOf(SEQUENTIAL);
  for (let r = 0; r < T; r++)
    for (let c = 0; c < T; c++) {
      const p = (r * T + c) * 4;
      if (causal && c > r) {
        image.data.set([236, 237, 241, 255], p);
        continue;
      }
      const i = lutIndex(data[offset + r * T + c], SEQUENTIAL) * 3;
      image.data.set([lut[i], lut[i + 1], lut[i + 2], 255], p);
    }
  ctx.putImageData(image, 0, 0);
}
