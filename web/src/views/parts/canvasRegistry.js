// One ResizeObserver for every heatmap canvas: a canvas is (re)drawn at its real device-pixel size
// whenever it gets a size, including when its hidden section becomes visible: paint(w, h, scale),
// scale being device pixels per CSS pixel (under emulation devicePixelRatio is not what the box
// got). repaint() draws it again at the size it has now (new values, same size) without waiting
// for a resize, or leaves it to the observer while it has no size (its section hidden).
// An IntersectionObserver says which canvases are within half a viewport of being seen: new values
// and new sizes are drawn at once only there; the others (head_out and the worked example below
// the attend maps, a demo scrolled away in an article) are drawn when they come that near.
const painters = new WeakMap();
const sizes = new WeakMap(); // canvas -> [w, h, scale], as last reported
const near = new WeakMap(); // canvas -> whether it is within the margin (once known)
const waiting = new WeakSet(); // canvases with new values not drawn yet
let resizes = null;
let intersections = null;

// [device pixels wide, high, device pixels per CSS pixel]
function sizeOf(entry) {
  const css = entry.contentRect.width;
  const dp = entry.devicePixelContentBoxSize && entry.devicePixelContentBoxSize[0];
  if (dp) return [dp.inlineSize, dp.blockSize, css > 0 ? dp.inlineSize / css : 1];
  const dpr = window.devicePixelRatio || 1;
  return [Math.round(css * dpr), Math.round(entry.contentRect.height * dpr), dpr];
}

function draw(canvas) {
  const size = sizes.get(canvas);
  const paint = painters.get(canvas);
  waiting.delete(canvas);
  if (size && paint && size[0] > 0 && size[1] > 0) paint(...size);
}

// Whether a canvas is more than the margin away from the viewport, by its box (the layout is up to
// date in a ResizeObserver callback). A canvas the intersection observer has called near is drawn.
function far(canvas) {
  if (near.get(canvas) === true || !intersections) return false;
  const box = canvas.getBoundingClientRect();
  const margin = window.innerHeight / 2;
  return box.bottom < -margin || box.top > window.innerHeight + margin;
}

// Every box is read before any canvas is drawn: a first drawing sets the canvas's size, which
// makes the layout stale, and a box read after it would lay the page out again.
function onResize(entries) {
  const now = [];
  for (const entry of entries) {
    const canvas = entry.target;
    if (!canvas.isConnected) {
      release(canvas);
      continue;
    }
    sizes.set(canvas, sizeOf(entry));
    if (far(canvas)) waiting.add(canvas); // drawn when the intersection observer calls it near
    else now.push(canvas);
  }
  for (const canvas of now) draw(canvas);
}

function onIntersect(entries) {
  for (const entry of entries) {
    near.set(entry.target, entry.isIntersecting);
    if (entry.isIntersecting && waiting.has(entry.target)) draw(entry.target);
  }
}

export function observeCanvas(canvas, paint) {
  if (!resizes) {
    resizes = new ResizeObserver(onResize);
    if (typeof IntersectionObserver === 'function') intersections = new IntersectionObserver(onIntersect, { rootMargin: '50% 0px' });
  }
  painters.set(canvas, paint);
  observe(canvas);
  if (intersections) intersections.observe(canvas);
}

export function repaint(canvas) {
  if (!canvas.isConnected) return;
  if (near.get(canvas) === false) waiting.add(canvas);
  else draw(canvas);
}

// New values for a canvas whose box is about to change (another T): drawn once, at its new size,
// when the observer reports it after the next layout, not now at the old size and again then.
// Observed anew, a canvas is reported at the next layout whether or not its size changed.
export function repaintResized(canvas) {
  if (!canvas.isConnected) return;
  sizes.delete(canvas);
  resizes.unobserve(canvas);
  observe(canvas);
}

function observe(canvas) {
  try {
    resizes.observe(canvas, { box: 'device-pixel-content-box' });
  } catch {
    resizes.observe(canvas);
  }
}

function release(canvas) {
  resizes.unobserve(canvas);
  if (intersections) intersections.unobserve(canvas);
}

export function releaseCanvases(root) {
  if (!resizes) return;
  for (const canvas of root.querySelectorAll('canvas')) release(canvas);
}
