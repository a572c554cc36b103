// Tiny DOM helpers: h() builds elements, setText() and setAttr() write what changed, clear() empties a
// container and releases its canvases, live() / renew() let a view built for one state show a
// later one in place, and keepFocus() carries the focus into a view built anew.
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

// Sets each of `buttons` ([button, disabled] pairs) disabled or not. A button disabled while it has the
// focus drops it to the page's top: the first of the others left enabled takes it, in the pairs' order
// (Start → Pause when a run starts, Pause → Start when it pauses).
export function setDisabled(buttons) {
  const had = buttons.length ? buttons[0][0].getRootNode().activeElement : null;
  for (const [button, off] of buttons) if (button.disabled !== off) button.disabled = off;
  if (!buttons.some(([button, off]) => button === had && off)) return;
  const open = buttons.find(([button]) => !button.disabled);
  if (open) open[0].focus({ preventScroll: true });
}

// Whether `button` can be pressed now. A focused button made `disabled` for the length of what it
// started (Generate's tokens) throws a keyboard user's focus to the top of the page; this one is
// marked aria-disabled instead, keeps the focus, and ignores presses until it can be pressed again.
const pressGuarded = new WeakSet();
export function setPressable(button, can) {
  if (!pressGuarded.has(button)) {
    pressGuarded.add(button);
    button.addEventListener('click', (e) => {
      if (button.getAttribute('aria-disabled') !== 'true') return;
      e.preventDefault();
      e.stopImmediatePropagation();
    }, true);
  }
  if (can) button.removeAttribute('aria-disabled');
  else setAttr(button, 'aria-disabled', 'true');
}

// What stands for a control across a rebuild: its tag, id, type and data-* attributes (a head's switch
// is input[type=checkbox][data-head-switch="3.0"] in every heads table built for that layer), and,
// with `values` false, the kind of control it is (a head's switch of whichever layer).
function controlSelector(el, values = true) {
  const attrs = [...el.attributes].filter((a) => a.name === 'id' || a.name === 'type' || a.name.startsWith('data-'));
  if (!values && !attrs.some((a) => a.name.startsWith('data-'))) return null; // a kind needs a data-* name
  return el.tagName.toLowerCase() + attrs.map((a) => (values || !a.name.startsWith('data-') ? `[${a.name}="${CSS.escape(a.value)}"]` : `[${a.name}]`)).join('');
}

// Runs replace(), which puts a new view where `old` was; if the focus was inside `old`, it goes to the
// control of the new view that stands for the one focused (controlSelector: the one of the same
// attributes, else the first of the same kind — the new layer's first head switch, say), else to the
// new view's landmark for it (`takesFocus`: the heading of what a pressed button made), without
// scrolling. A view rebuilt while a keyboard user is on one of its controls (the heads table, when a
// new text gives it another column) must not drop them at the top of the page.
export function keepFocus(old, replace) {
  const root = old && old.getRootNode && old.getRootNode();
  const focused = root && root.activeElement;
  const inside = focused && focused !== old && old.contains(focused) ? focused : null;
  const node = replace();
  if (inside && node && node.querySelector) {
    const exact = node.querySelectorAll(controlSelector(inside));
    const kind = controlSelector(inside, false);
    const same = (exact.length === 1 ? exact[0] : kind && node.querySelector(kind)) || node.querySelector('[data-takes-focus]');
    if (same) same.focus({ preventScroll: true });
  }
  return node;
}

// The attributes of a view's landmark for the focus (keepFocus): a heading a script can focus, which
// a rebuilt view gives the focus to when the control that had it is gone (a button replaced by what it
// computed).
export const takesFocus = { tabindex: '-1', 'data-takes-focus': '' };
