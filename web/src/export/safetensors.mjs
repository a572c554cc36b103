// Writing safetensors, with no browser or Node dependency: the page's stage export and the
// benchmark's weight files both use it (.mjs, so Node loads it as a module too).
// safetensors: 8-byte little-endian header length, the JSON header (padded with spaces to a
// multiple of 8), then the raw little-endian bytes of each tensor. dtype F32 unless given; a tensor
// given as {shape, dtype, raw} (its little-endian bytes, any dtype) is written as it is.
export function tensorsSafetensors(tensors, metadata = {}) {
  const header = {};
  const parts = [];
  let offset = 0;
  for (const [name, { shape, data, raw, dtype = 'F32' }] of Object.entries(tensors)) {
    let bytes = raw;
    if (!bytes) {
      const typed = dtype === 'I32' ? Int32Array.from(data) : Float32Array.from(data);
      bytes = new Uint8Array(typed.byteLength);
      const view = new DataView(bytes.buffer);
      for (let i = 0; i < typed.length; i++) {
        if (dtype === 'I32') view.setInt32(i * 4, typed[i], true);
        else view.setFloat32(i * 4, typed[i], true);
      }
    }
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  const meta = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)]));
  const json = JSON.stringify(Object.keys(meta).length ? { __metadata__: meta, ...header } : header);
  let headerBytes = new TextEncoder().encode(json);
  const padded = Math.ceil(headerBytes.length / 8) * 8;
  if (padded !== headerBytes.length) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(headerBytes);
    headerBytes = p;
  }
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
