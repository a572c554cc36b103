// One floating tooltip per document or shadow root (so it takes that root's styles): shows the
// exact value under the pointer. The tip sits directly in the root, outside any size container,
// so position: fixed is relative to the viewport.
const tips = new Map(); // root -> element

function element(anchor) {
  const root = anchor && anchor.getRootNode ? anchor.getRootNode() : document;
  let tip = tips.get(root);
  if (!tip) {
    tip = document.createElement('div');
    tip.className = 'tooltip';
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    (root === document ? document.body : root).append(tip);
    tips.set(root, tip);
  }
  return tip;
}

// anchor: the element under the pointer (any node of the right root).
export function showTip(lines, clientX, clientY, anchor) {
  hideTip();
  const el = element(anchor);
  el.replaceChildren(
    ...lines.map((line, i) => {
      const div = document.createElement('div');
      div.className = i === 0 ? 'tip-main' : 'tip-sub';
      div.textContent = line;
      return div;
    }),
  );
  el.hidden = false;
  const pad = 14;
  const w = el.offsetWidth;
  const hgt = el.offsetHeight;
  let x = clientX + pad;
  let y = clientY + pad;
  if (x + w > window.innerWidth - 4) x = Math.max(4, clientX - w - pad);
  if (y + hgt > window.innerHeight - 4) y = Math.max(4, clientY - hgt - pad);
  el.style.transform = `translate(${x}px, ${y}px)`;
}

export function hideTip() {
  for (const [root, tip] of tips) {
    if (!tip.isConnected) tips.delete(root);
    else tip.hidden = true;
  }
}
