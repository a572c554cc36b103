// A view's figure as SVG or PNG (with its resolution, for print): laid out once (figure.js), drawn
// either way.
import { download, safeName } from './files.js';
import { layoutFigure, figureSvg, figureCanvas, PNG_SCALE } from './figure.js';

// ---- PNG: the canvas's bytes plus a pHYs chunk, so print software reads the resolution ----
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function withPhys(png, dpi) {
  const ppm = Math.round(dpi / 0.0254);
  const chunk = new Uint8Array(4 + 4 + 9 + 4);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, 9);
  chunk.set([0x70, 0x48, 0x59, 0x73], 4); // "pHYs"
  view.setUint32(8, ppm);
  view.setUint32(12, ppm);
  chunk[16] = 1; // unit: metre
  view.setUint32(17, crc32(chunk.subarray(4, 17)));
  const ihdrEnd = 8 + 4 + 4 + 13 + 4; // signature, then the IHDR chunk
  const out = new Uint8Array(png.length + chunk.length);
  out.set(png.subarray(0, ihdrEnd), 0);
  out.set(chunk, ihdrEnd);
  out.set(png.subarray(ihdrEnd), ihdrEnd + chunk.length);
  return out;
}

export async function exportFigure(spec, format, anchorNode) {
  const fig = layoutFigure(spec);
  const base = safeName(spec.file || spec.name);
  if (format === 'svg') {
    download(new Blob([figureSvg(fig)], { type: 'image/svg+xml' }), `${base}.svg`, anchorNode);
    return;
  }
  const canvas = figureCanvas(fig, PNG_SCALE);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  const png = withPhys(new Uint8Array(await blob.arrayBuffer()), 96 * PNG_SCALE);
  download(new Blob([png], { type: 'image/png' }), `${base}.png`, anchorNode);
}
