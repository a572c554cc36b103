// A URL's bytes for a model or weights attribute, or a message that says why not (and, on a
// file:// page, that browsers refuse fetch there).
import { t } from './i18n.js';

export async function fetchBytes(url, lang) {
  try {
    const res = await fetch(new URL(url, document.baseURI));
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`.trim());
    return { bytes: new Uint8Array(await res.arrayBuffer()) };
  } catch (e) {
    const hint = location.protocol === 'file:' ? ` ${t(lang, 'weightsFileHint')}` : '';
    return { failure: `${t(lang, 'weightsFailed', { url, msg: (e && e.message) || String(e) })}${hint}` };
  }
}
