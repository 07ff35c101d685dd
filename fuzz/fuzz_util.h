// Helpers shared by the libFuzzer targets in fuzz/.
//
// A target returns normally on any input a parser refuses with a Status;
// FUZZ_CHECK aborts (libFuzzer saves the input as a crash) when a property
// that must hold for every accepted input does not, such as a round trip.
#ifndef LPSIM_FUZZ_FUZZ_UTIL_H_
#define LPSIM_FUZZ_FUZZ_UTIL_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#define FUZZ_CHECK(cond)                                                               \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

namespace lpsim::fuzz {

// A directory of this process's own under $TMPDIR (or /tmp), made once and
// reused for every input, for the targets whose reader takes a path. Removed
// at a normal exit (libFuzzer exits normally at -max_total_time).
inline const std::string& ScratchDir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/lpsim_fuzz.XXXXXX";
    if (!::mkdtemp(tmpl.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    return tmpl;
  }();
  static const bool cleanup = [] {
    return std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }) == 0;
  }();
  (void)cleanup;
  return dir;
}

// Replaces `path` with exactly `size` bytes from `data`.
inline void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
}

}  // namespace lpsim::fuzz

#endif  // LPSIM_FUZZ_FUZZ_UTIL_H_
