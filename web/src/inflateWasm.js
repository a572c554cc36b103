// The core's wasm travels gzipped, as base64 (scripts/build-web.sh); this gives its bytes back, for
// the page and for the worker alike. DecompressionStream: Chromium 80, Firefox 113, Safari 16.4.
import { base64Bytes } from './base64.js';

export async function inflateWasm(base64) {
  const stream = new Blob([base64Bytes(base64)]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
