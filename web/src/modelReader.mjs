// Opens a whole model (gpt2, attn-only) from a Blob without ever holding the file: the header first,
// then only the tensors the model needs, each read with blob.slice in pieces and handed to the core
// (mha.ModelBuilder, cpp/core/io/model_builder.h), which converts them into its weights. Every piece
// is read into the same buffer (pieceReader), so the page holds one piece at a time. Works with any
// {size, slice(begin, end) -> {stream() or arrayBuffer()}}: a File in the page, fs.openAsBlob's
// Blob in Node (tests/node/open.test.js). .mjs so Node loads it.

// Bytes per piece handed to the core, which copies each into its memory before converting it: small
// next to the weights, large enough to keep the calls few (137 for GPT-2 small). A multiple of 8, so
// every piece holds whole values.
export const PIECE_BYTES = 4 << 20;
const HEADER_CAP = 100 << 20; // the core refuses longer headers (safetensors' own cap)

async function bytesOf(blob, begin, end) {
  return new Uint8Array(await blob.slice(begin, end).arrayBuffer());
}

// A BYOB reader of the blob's bytes, or null where blobs have no byte streams.
function byobReader(blob) {
  if (typeof blob.stream !== 'function') return null;
  try {
    return blob.stream().getReader({ mode: 'byob' });
  } catch {
    return null;
  }
}

// -> read(blob, begin, end, onPiece): calls onPiece(bytes) for blob[begin, end) in pieces of
// PIECE_BYTES (the last one shorter), in order; `bytes` is valid only until onPiece returns. Every
// piece goes through one buffer, which each BYOB read moves and hands back. Read with arrayBuffer()
// instead, a new buffer per piece, the spent pieces piled up until V8 collected them: ~200 MB
// more at the tab's peak while opening GPT-2 small (Chromium 156, scripts/bench-open.js).
// Blobs without byte streams are still read that way.
function pieceReader() {
  let buffer = null;
  return async function read(blob, begin, end, onPiece) {
    const reader = byobReader(blob.slice(begin, end));
    if (!reader) {
      for (let at = begin; at < end; at += PIECE_BYTES) await onPiece(await bytesOf(blob, at, Math.min(end, at + PIECE_BYTES)));
      return;
    }
    let filled = 0;
    let done = false;
    try {
      while (!done) {
        if (!buffer) buffer = new ArrayBuffer(PIECE_BYTES);
        const result = await reader.read(new Uint8Array(buffer, filled, buffer.byteLength - filled));
        done = result.done;
        if (!result.value) throw new Error('the file stopped being readable'); // a cancelled stream
        buffer = result.value.buffer; // the read moved it into a new ArrayBuffer: the same bytes
        filled += result.value.byteLength; // 0 when done
        if (filled > 0 && (filled === PIECE_BYTES || done)) {
          await onPiece(new Uint8Array(buffer, 0, filled));
          filled = 0;
        }
      }
    } finally {
      if (!done) reader.cancel().catch(() => {});
    }
  };
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

// -> a mha.Model. options: {name (the file's, which its errors say), layout: 'gpt2' | 'attn-only' | '' (guessed), heads (0: config.json's,
// the file's, or d_model / 64 for gpt2), config (config.json's text or bytes, '' for none), header
// (readHeader's bytes, when the caller has read them already), signal (an AbortSignal: the read stops
// between pieces and rejects with an AbortError), onProgress(read, needed) after the header and every
// piece, in bytes of the file}. Throws MhaError for a bad file; nothing is kept.
export async function readModel(mha, blob, { name = '', layout = '', heads = 0, config = '', header = null, signal = null, onProgress = () => {} } = {}) {
  const head = header || (await readHeader(blob));
  const builder = new mha.ModelBuilder(head, blob.size, { layout, heads, config, name });
  try {
    const needed = builder.needed;
    const total = head.length + needed.reduce((sum, t) => sum + (t.end - t.begin), 0);
    let read = head.length;
    onProgress(read, total);
    const readPieces = pieceReader();
    for (const t of needed) {
      if (signal && signal.aborted) throw abortError();
      await readPieces(blob, t.begin, t.end, (piece) => {
        if (signal && signal.aborted) throw abortError();
        builder.add(t.name, piece);
        read += piece.length;
        onProgress(read, total);
      });
    }
    if (signal && signal.aborted) throw abortError();
    return builder.finish();
  } finally {
    builder.delete();
  }
}
