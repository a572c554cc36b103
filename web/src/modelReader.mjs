// Opens a whole model (gpt2, attn-only) from a Blob without ever holding the file: the header first,
// then only the tensors the model needs, each read with blob.slice in pieces and handed to the core
// (mha.ModelBuilder, cpp/core/model_builder.h), which converts them into its weights; each piece is
// dropped before the next is read. Works with any {size, slice(begin, end) -> {arrayBuffer()}}: a
// File in the page, fs.openAsBlob's Blob in Node (tests/node/open.test.js). .mjs so Node loads it.

// Bytes per read: large enough that a 500 MB file takes few round trips, small enough that the
// page's peak stays near the model's own weights. A multiple of 8, so every piece holds whole values.
export const PIECE_BYTES = 16 << 20;
const HEADER_CAP = 100 << 20; // the core refuses longer headers (safetensors' own cap)

async function bytesOf(blob, begin, end) {
  return new Uint8Array(await blob.slice(begin, end).arrayBuffer());
}

function abortError() {
  const e = new Error('opening the file was cancelled');
  e.name = 'AbortError';
  return e;
}

// The first 8 + N bytes (length, JSON), or as much of them as the file has: the core says what is wrong.
export async function readHeader(blob) {
  const first = await bytesOf(blob, 0, Math.min(8, blob.size));
  if (first.length < 8) return first;
  const n = new DataView(first.buffer).getBigUint64(0, true);
  const length = Number(n > BigInt(HEADER_CAP) ? BigInt(HEADER_CAP) + 1n : n);
  const end = Math.min(blob.size, 8 + length);
  const out = new Uint8Array(end);
  out.set(first);
  out.set(await bytesOf(blob, 8, end), 8);
  return out;
}

// -> a mha.Model. options: {layout: 'gpt2' | 'attn-only' | '' (guessed), heads (0: the file's),
// header (readHeader's bytes, when the caller has read them already), signal (an AbortSignal: the
// read stops between pieces and rejects with an AbortError), onProgress(read, needed) after the
// header and every piece, in bytes of the file}. Throws MhaError for a bad file; nothing is kept.
export async function readModel(mha, blob, { layout = '', heads = 0, header = null, signal = null, onProgress = () => {} } = {}) {
  const head = header || (await readHeader(blob));
  const builder = new mha.ModelBuilder(head, blob.size, { layout, heads });
  try {
    const needed = builder.needed;
    const total = head.length + needed.reduce((sum, t) => sum + (t.end - t.begin), 0);
    let read = head.length;
    onProgress(read, total);
    for (const t of needed) {
      for (let at = t.begin; at < t.end; at += PIECE_BYTES) {
        if (signal && signal.aborted) throw abortError();
        const piece = await bytesOf(blob, at, Math.min(t.end, at + PIECE_BYTES));
        builder.add(t.name, piece);
        read += piece.length;
        onProgress(read, total);
      }
    }
    if (signal && signal.aborted) throw abortError();
    return builder.finish();
  } finally {
    builder.delete();
  }
}
