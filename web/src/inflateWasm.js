// The core's wasm travels gzipped, as base64 (scripts/build-web.sh); this gives its bytes back, for
// the page and for the worker alike. DecompressionStream: Chromium 80, Firefox 113, Safari 16.4.
export async function inflateWasm(base64) {
  const gz = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
