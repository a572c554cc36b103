// Bytes from JavaScript (a file, a tensor of one read in pieces) into the core. A file of its own,
// compiled for speed, not size (CMakeLists.txt): at -Oz the vector's zero-fill before the copy is a
// loop a byte at a time, 18 ms of the Tang model's 74 ms load and seconds over GPT-2 small's pieces;
// here it is one memset.
#include <emscripten/val.h>

#include "base/error.h"
#include "marshal.h"

namespace mha_wasm {

using emscripten::val;

std::vector<uint8_t> bytes_from_js(const val& array) {
  val view = array;
  if (array.instanceof(val::global("ArrayBuffer"))) view = val::global("Uint8Array").new_(array);
  if (!view.instanceof(val::global("Uint8Array"))) throw mha::Error("weights must be a Uint8Array or ArrayBuffer");
  return emscripten::convertJSArrayToNumberVector<uint8_t>(view);
}

}  // namespace mha_wasm
