// A view a part of the widget draws (parts.js), under the update contract of steps.js: a box, filled
// at once when the part is here; else when it comes (with the latest state the box was offered), or
// with a line saying which file is missing.
import { h, live, renew } from '../../dom.js';
import { t } from '../../i18n.js';
import { partReady, partLoaded } from '../../sharedModule.js';
import { partScript } from '../../parts.js';

// What stands where a part's view or panel would be when its script could not be loaded.
export const partMissing = (lang, name) => h('p', { class: 'banner', role: 'alert' }, t(lang, 'partMissing', { file: partScript(name) }));

// draw(part, state, actions) -> Node: the view, once `name` has come. The view is always in its box,
// drawn at once or when the part comes, so a page that had the part from the start and one that
// waited for it build the same DOM.
export function fromPart(name, draw) {
  return (state, actions) => {
    const part = partLoaded(name);
    const box = h('div', { class: 'part-view' });
    let latest = state;
    let filled = Boolean(part);
    if (part) box.append(draw(part, state, actions));
    else {
      box.setAttribute('aria-busy', 'true');
      partReady(name).then((p) => box.replaceChildren(draw(p, latest, actions)), () => box.replaceChildren(partMissing(latest.lang, name))).finally(() => {
        filled = true;
        box.removeAttribute('aria-busy');
      });
    }
    // Before the part: the state it will show. After: its own view's answer (false: draw anew).
    return live(box, (s) => {
      latest = s;
      return !filled || renew(box.firstElementChild, s);
    });
  };
}
