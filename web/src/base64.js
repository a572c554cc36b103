// Bytes from base64 text (the wasm inside mha-demo.js, a trained model's script beside it). A plain
// loop over atob's string: Uint8Array.from(…, mapFn) calls a function per byte, which took 600 ms of
// the opening of a 2.5 MB model here (and 25–50 ms of the 200 KB wasm's), against 10–20 ms.
export function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
