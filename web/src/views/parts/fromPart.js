// A view a part of the widget draws (parts.js), under the update contract of steps.js: drawn at once
// when the part is here; else a box the part's view fills when it comes (with the latest state the box
// was offered), or a line saying which file is missing.
import { h, live, renew } from '../../dom.js';
import { t } from '../../i18n.js';
import { partReady, partLoaded } from '../../sharedModule.js';
import { partScript } from '../../parts.js';

// What stands where a part's view or panel would be when its script could not be loaded.
export const partMissing = (lang, name) => h('p', { class: 'banner', role: 'alert' }, t(lang, 'partMissing', { file: partScript(name) }));

// draw(part, state, actions) -> Node: the view, once `name` has come.
export function fromPart(name, draw) {
  return (state, actions) => {
    const part = partLoaded(name);
    if (part) return draw(part, state, actions);
    let latest = state;
    let filled = false;
    const box = h('div', { class: 'part-view', 'aria-busy': 'true' });
    partReady(name).then((p) => box.replaceChildren(draw(p, latest, actions)), () => box.replaceChildren(partMissing(latest.lang, name))).finally(() => {
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
