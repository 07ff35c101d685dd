#include "simd/parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "formats/fixed_sum.h"

namespace lpsim {
namespace simd {

size_t ThreadsFor(size_t n, int threads) {
  if (threads <= 1) return 1;
  const size_t by_size = std::max<size_t>(1, n / kMinElementsPerThread);
  const size_t by_chunks = std::max<size_t>(1, NumSumChunks(n));
  return std::min({static_cast<size_t>(threads), by_size, by_chunks});
}

void ForEachRange(size_t count, size_t workers,
                  const std::function<void(size_t, size_t, size_t)>& fn) {
  workers = std::max<size_t>(1, std::min(workers, std::max<size_t>(1, count)));
  if (workers == 1) {
    fn(0, 0, count);
    return;
  }
  auto begin = [&](size_t w) { return count * w / workers; };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t w = 1; w < workers; ++w) {
    pool.emplace_back([&fn, w, b = begin(w), e = begin(w + 1)] { fn(w, b, e); });
  }
  fn(0, begin(0), begin(1));
  for (std::thread& t : pool) t.join();
}

void ForEachChunkRange(size_t n, size_t workers,
                       const std::function<void(size_t, size_t, size_t)>& fn) {
  ForEachRange(NumSumChunks(n), workers, fn);
}

}  // namespace simd
}  // namespace lpsim
