// Tiny DOM helpers: h() builds elements, setText() and setAttr() write what changed, clear() empties a
// container and releases its canvases, live() / renew() let a view built for one state show a
// later one in place.
import { releaseCanvases } from './views/parts/canvasRegistry.js';

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'html') el.innerHTML = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'style' && typeof value === 'object') {
      for (const [prop, v] of Object.entries(value)) {
        if (prop.startsWith('--')) el.style.setProperty(prop, String(v));
        else el.style[prop] = v;
      }
    }
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// Writes text only when it differs (an equal text written again still replaces the text node, and
// the page lays it out and shapes it again), into the element's one text node when it has one.
export function setText(el, text) {
  const node = el.firstChild;
  if (node && node === el.lastChild && node.nodeType === Node.TEXT_NODE) {
    if (node.data !== text) node.data = text;
  } else if (el.textContent !== text) el.textContent = text;
}

// Sets an attribute only when it differs.
export function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

export function clear(el) {
  releaseCanvases(el);
  el.replaceChildren();
}

// A view whose structure (labels, shapes, texts) is the same for many states and only its numbers
// change (a new seed, the causal mask) registers update(state): it redraws those numbers in place
// and returns true, or returns false when the state needs another structure (the caller rebuilds).
// In place, nothing is added to the DOM, so a new result costs no style or layout work.
const updaters = new WeakMap();

export function live(node, update) {
  updaters.set(node, update);
  return node;
}

export function renew(node, state) {
  const update = node && updaters.get(node);
  return Boolean(update) && update(state) === true;
}
