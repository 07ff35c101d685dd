// The header dict of a .npy file, the Python literal numpy writes, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }, parsed
// strictly, and the check of its dtype against what lpsim reads. Messages say
// what is wrong and how to write the file instead.
//
//   NpyHeader h;
//   Status s = ParseNpyHeader(text, &h);
//   if (s.ok()) s = CheckNpyDescr(h.descr, &dtype, &item_size);
#ifndef LPSIM_STORE_INTERNAL_NPY_HEADER_H_
#define LPSIM_STORE_INTERNAL_NPY_HEADER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/npy.h"

namespace lpsim::store_internal {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<size_t> shape;
};

// Parses the dict (padding included); exactly the keys 'descr',
// 'fortran_order' and 'shape', each once.
Status ParseNpyHeader(const std::string& text, NpyHeader* h);

// The dtype and item size a descr names, or an error for one lpsim does not
// read (its message begins with kNpyUnsupportedDtype for a non-float type).
Status CheckNpyDescr(const std::string& descr, NpyDtype* dtype, size_t* item_size);

}  // namespace lpsim::store_internal

#endif  // LPSIM_STORE_INTERNAL_NPY_HEADER_H_
