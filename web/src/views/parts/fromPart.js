// A view a part of the widget draws (parts.js), under the update contract of steps.js: drawn at once
// when the part is here; else a box the part's view fills when it comes (with the latest state the box
// was offered), or a line saying which file is missing.
import { h, live, renew } from '../../dom.js';
import { t } from '../../i18n.js';
import { partReady, partLoaded } from '../../sharedModule.js';
import { partScript } from '../../parts.js';

// draw(part, state, actions) -> Node: the view, once `name` has come.
export function fromPart(name, draw) {
  return (state, actions) => {
    const part = partLoaded(name);
    if (part) return draw(part, state, actions);
    let latest = state;
    let filled = false;
    const box = h('div', { class: 'part-view', 'aria-busy': 'true' });
    partReady(name).then((p) => box.replaceChildren(draw(p, latest, actions)), () => {
      box.replaceChildren(h('p', { class: 'banner', role: 'alert' }, t(latest.lang, 'partMissing', { file: partScript(name) })));
    }).finally(() => {
      filled = true;
      box.removeAttribute('aria-busy');
    });
    // Before the part: the state it will show. After: its own view's answer (false: draw anew).
    return live(box, (s) => {
      latest = s;
      return !filled || renew(box.firstElementChild, s);
    });
  };
}
