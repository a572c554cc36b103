// The memory bandwidth of V8's WebAssembly, where ours and onnxruntime-web run: a 256 MB copy by a
// SIMD128 loop in a module of its own (assembled here, 200 bytes), counted as STREAM counts a copy:
// every byte read and written, 2 × 256 MB moved. A decoding step reads each weight once, so the
// weights' bytes over this is its floor.
'use strict';

const MB = 1 << 20;
const COPY = 256 * MB;

// (module
//   (memory (export "memory") 8193)                          ;; 2 × 256 MB and a page
//   (func (export "copy") (param $src i32) (param $dst i32) (param $n i32) (local $i i32)
//     (loop $l
//       (v128.store offset=0  (i32.add dst i) (v128.load offset=0  (i32.add src i)))   ;; and at 16, 32, 48
//       (local.set $i (i32.add (local.get $i) (i32.const 64)))
//       (br_if $l (i32.lt_u (local.get $i) (local.get $n))))))
function copyModule() {
  const move = (offset) => [0x20, 1, 0x20, 3, 0x6a, 0x20, 0, 0x20, 3, 0x6a, 0xfd, 0x00, 4, offset, 0xfd, 0x0b, 4, offset];
  const body = [1, 1, 0x7f, 0x03, 0x40, ...[0, 16, 32, 48].flatMap(move),
    0x20, 3, 0x41, 0xc0, 0x00, 0x6a, 0x21, 3, 0x20, 3, 0x20, 2, 0x49, 0x0d, 0x00, 0x0b, 0x0b];
  const bytes = [0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    1, 7, 1, 0x60, 3, 0x7f, 0x7f, 0x7f, 0, // type: (i32, i32, i32) -> ()
    3, 2, 1, 0, // one function of that type
    5, 4, 1, 0, 0x81, 0x40, // memory: 8193 pages
    7, 17, 2, 6, ...Buffer.from('memory'), 2, 0, 4, ...Buffer.from('copy'), 0, 0,
    10, body.length + 2, 1, body.length, ...body];
  return new WebAssembly.Instance(new WebAssembly.Module(Uint8Array.from(bytes))).exports;
}

// GB/s (10⁹ bytes moved per second): the best of `runs` copies, after one that maps every page.
function wasmCopyBandwidth(runs = 5) {
  const { copy } = copyModule();
  copy(0, COPY, COPY);
  let best = Infinity;
  for (let r = 0; r < runs; ++r) {
    const t0 = performance.now();
    copy(0, COPY, COPY);
    best = Math.min(best, performance.now() - t0);
  }
  return (2 * COPY) / (best / 1e3) / 1e9;
}

// A decoding step only reads its weights, and a read-only stream runs faster than a copy: the
// read floor is the tighter one. A 256 MB sum by a SIMD128 loop (four f32x4 sums, 64 bytes a turn):
// (module
//   (memory (export "memory") 4097)
//   (func (export "read") (param $p i32) (param $n i32) (result f32) (local $i i32) (local v128 v128 v128 v128)
//     (loop $l
//       (local.set 3 (f32x4.add (local.get 3) (v128.load offset=0 (i32.add p i))))   ;; 4 … 6 at 16, 32, 48
//       (local.set $i (i32.add (local.get $i) (i32.const 64)))
//       (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
//     (f32x4.extract_lane 0 (local.get 3))))
function readModule() {
  const sum = (acc, offset) => [0x20, acc, 0x20, 0, 0x20, 2, 0x6a, 0xfd, 0x00, 4, offset, 0xfd, 0xe4, 0x01, 0x21, acc];
  const body = [2, 1, 0x7f, 4, 0x7b, 0x03, 0x40, ...sum(3, 0), ...sum(4, 16), ...sum(5, 32), ...sum(6, 48),
    0x20, 2, 0x41, 0xc0, 0x00, 0x6a, 0x21, 2, 0x20, 2, 0x20, 1, 0x49, 0x0d, 0x00, 0x0b,
    0x20, 3, 0xfd, 0x1f, 0, 0x0b];
  const bytes = [0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    1, 7, 1, 0x60, 2, 0x7f, 0x7f, 1, 0x7d, // type: (i32, i32) -> f32
    3, 2, 1, 0,
    5, 4, 1, 0, 0x81, 0x20, // memory: 4097 pages
    7, 17, 2, 6, ...Buffer.from('memory'), 2, 0, 4, ...Buffer.from('read'), 0, 0,
    10, body.length + 2, 1, body.length, ...body];
  return new WebAssembly.Instance(new WebAssembly.Module(Uint8Array.from(bytes))).exports;
}

// GB/s (10⁹ bytes read per second): the best of `runs` sums of 256 MB written beforehand (pages never
// written would all read the one zero page).
function wasmReadBandwidth(runs = 5) {
  const { memory, read } = readModule();
  new Uint8Array(memory.buffer, 0, COPY).fill(1);
  let best = Infinity;
  for (let r = 0; r < runs; ++r) {
    const t0 = performance.now();
    read(0, COPY);
    best = Math.min(best, performance.now() - t0);
  }
  return COPY / (best / 1e3) / 1e9;
}

module.exports = { wasmCopyBandwidth, wasmReadBandwidth };
