// One ResizeObserver for every heatmap canvas: a canvas is (re)drawn at its real device-pixel size
// whenever it gets a size, including when its hidden section becomes visible: paint(w, h, scale),
// scale being device pixels per CSS pixel (under emulation devicePixelRatio is not what the box
// got). repaint() draws it again at the size it has now (new values, same size) without waiting
// for a resize, or leaves it to the observer while it has no size (its section hidden).
const painters = new WeakMap();
const sizes = new WeakMap(); // canvas -> [w, h, scale], as last reported
let observer = null;

// [device pixels wide, high, device pixels per CSS pixel]
function sizeOf(entry) {
  const css = entry.contentRect.width;
  const dp = entry.devicePixelContentBoxSize && entry.devicePixelContentBoxSize[0];
  if (dp) return [dp.inlineSize, dp.blockSize, css > 0 ? dp.inlineSize / css : 1];
  const dpr = window.devicePixelRatio || 1;
  return [Math.round(css * dpr), Math.round(entry.contentRect.height * dpr), dpr];
}

function onResize(entries) {
  for (const entry of entries) {
    const canvas = entry.target;
    if (!canvas.isConnected) {
      observer.unobserve(canvas);
      continue;
    }
    const size = sizeOf(entry);
    sizes.set(canvas, size);
    const paint = painters.get(canvas);
    if (paint && size[0] > 0 && size[1] > 0) paint(...size);
  }
}

export function observeCanvas(canvas, paint) {
  if (!observer) observer = new ResizeObserver(onResize);
  painters.set(canvas, paint);
  try {
    observer.observe(canvas, { box: 'device-pixel-content-box' });
  } catch {
    observer.observe(canvas);
  }
}

export function repaint(canvas) {
  const size = sizes.get(canvas);
  const paint = painters.get(canvas);
  if (size && paint && size[0] > 0 && size[1] > 0 && canvas.isConnected) paint(...size);
}

export function releaseCanvases(root) {
  if (!observer) return;
  for (const canvas of root.querySelectorAll('canvas')) observer.unobserve(canvas);
}
