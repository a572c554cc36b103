// One floating tooltip shared by every heatmap: shows the exact value under the pointer.
let tip = null;

function element() {
  if (!tip) {
    tip = document.createElement('div');
    tip.className = 'tooltip';
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    document.body.append(tip);
  }
  return tip;
}

export function showTip(lines, clientX, clientY) {
  const el = element();
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
  if (tip) tip.hidden = true;
}
