// Strict reading and atomic writing of NumPy .npy files (format 1.0, 2.0, 3.0).
//
// lpsim simulates casts from fp32, so arrays come in as fp32 whatever their
// stored float type: float16 is widened exactly, float64 is rounded once to
// nearest even. Anything else (big-endian, Fortran order, integers, structured
// dtypes, a header that does not match the data) is rejected with a message
// that says what is wrong and how to fix the file, never guessed at.
//
//   StatusOr<NpyArray> a = ReadNpy("acts.npy");
//   if (!a.ok()) { std::cerr << a.status().message() << "\n"; return 2; }
//   Status s = WriteNpy("out.npy", a->shape, a->data.data());
//
// Writing goes to a temporary file beside the target and is renamed over it
// at the end, so a reader (or a crash) never sees a half-written file and a
// failed write leaves an existing target untouched.
#ifndef LPSIM_STORE_NPY_H_
#define LPSIM_STORE_NPY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/output.h"
#include "core/status.h"

namespace lpsim {

// The element types ReadNpy accepts (all little-endian).
enum class NpyDtype : uint8_t { kFloat16, kFloat32, kFloat64 };
const char* ToString(NpyDtype d);  // "float16", "float32", "float64"

struct NpyArray {
  std::vector<size_t> shape;                   // empty for a 0-d array (one element)
  std::vector<float> data;                     // C order, product(shape) elements
  NpyDtype source_dtype = NpyDtype::kFloat32;  // what the file stored
};

// The most dimensions ReadNpy accepts.
constexpr size_t kNpyMaxDims = 32;

// How ReadNpy's error for an element type that is not a float begins (after
// "PATH: "), e.g. "unsupported dtype '<i4' (int32); ...": callers that skip
// such arrays (lpsim analyze DIR) tell it by this.
extern const char kNpyUnsupportedDtype[];

// Number of elements of `shape` (1 for 0-d). Precondition: no overflow (the
// reader checks that before it allocates).
size_t NumElements(const std::vector<size_t>& shape);

// "()", "(3,)", "(2, 3)": the Python spelling, as in the .npy header.
std::string ShapeToString(const std::vector<size_t>& shape);

// Parses a whole .npy file held in memory. Errors carry no file name.
StatusOr<NpyArray> ParseNpy(const void* bytes, size_t size);

// Reads and parses `path`; errors start with the path.
StatusOr<NpyArray> ReadNpy(const std::string& path);

// ReadNpy that hands the data over as it arrives, so a caller can convert
// and write one piece while the next is read: for a float32 file
// piece(shape, data, begin, end) runs after every `piece_elems` elements
// (and the last, shorter piece), otherwise once over the whole array
// (begin 0, end numel; an empty array gets one call with begin == end).
// data[begin, end) may be changed in place. A failing piece() stops the
// read; its status is returned as is.
using NpyPieceFn = std::function<Status(const std::vector<size_t>& shape, float* data,
                                        size_t begin, size_t end)>;
StatusOr<NpyArray> ReadNpy(const std::string& path, size_t piece_elems, const NpyPieceFn& piece);

// The bytes of a float32 ('<f4', C order, version 1.0 unless the header needs
// 2.0) .npy file; the header is space-padded so the data starts at a multiple
// of 64 bytes. `data` holds NumElements(shape) values.
std::string EncodeNpy(const std::vector<size_t>& shape, const float* data);

// Writes EncodeNpy(shape, data) to `path` atomically: into
// "<path>.tmp.<pid>.<n>" in the same directory, flushed to disk, then renamed
// over `path`. On any failure the temporary file is removed and `path` is
// left as it was.
Status WriteNpy(const std::string& path, const std::vector<size_t>& shape, const float* data);

// EncodeNpy in pieces into an open output (core/output.h): the header, then
// the data a piece at a time in file order (little-endian on any host).
std::string EncodeNpyHeader(const std::vector<size_t>& shape);
Status WriteNpyFloats(OutputSink& out, const float* data, size_t n);

}  // namespace lpsim

#endif  // LPSIM_STORE_NPY_H_
