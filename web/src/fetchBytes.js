// A URL's bytes for a model or weights attribute, or a message that says why not (and, on a
// file:// page, that browsers refuse fetch there): {bytes} | {failure: pageMessage}.
import { pageMessage } from './messages.js';

export async function fetchBytes(url) {
  let res;
  try {
    res = await fetch(new URL(url, document.baseURI));
  } catch {
    return { failure: pageMessage(location.protocol === 'file:' ? 'fetchFailedFile' : 'fetchFailedNetwork', { url }) };
  }
  if (!res.ok) return { failure: pageMessage('fetchFailed', { url, status: `HTTP ${res.status}` }) };
  try {
    return { bytes: new Uint8Array(await res.arrayBuffer()) };
  } catch {
    return { failure: pageMessage('fetchFailedNetwork', { url }) };
  }
}
