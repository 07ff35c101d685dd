#include "store/torch_archive.h"

#include <cstdint>
#include <string>

namespace lpsim {

namespace {

// Little-endian field readers; the caller has checked the bounds.
uint64_t Le(std::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
  return v;
}

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr size_t kLocalSize = 30, kCentralSize = 46, kEndSize = 22, kLocator64Size = 20, kEnd64Size = 56;
constexpr uint32_t kNone32 = 0xffffffffu;
constexpr uint64_t kMaxInflate = 1032;  // deflate's largest expansion ratio

// The pickle opcodes and the size of their fixed argument. A length-prefixed
// argument (strings, bytes, longs) has its prefix's size here and its length
// read from it; kLine opcodes take text up to '\n' (one line, or two for
// GLOBAL and INST). Opcodes from pickletools' table, protocols 0-5.
constexpr int kLine = -1, kUnknown = -2;
struct Op {
  int fixed = kUnknown;    // bytes of fixed argument, kLine or kUnknown
  bool prefixed = false;   // `fixed` bytes hold the length of what follows
  int lines = 1;           // for kLine
};

Op Lookup(unsigned char c) {
  switch (c) {
    // No argument.
    case '(': case '.': case '0': case '1': case '2': case 'N': case 'Q': case 'R': case 'a':
    case 'b': case 'd': case '}': case 'e': case 'l': case ']': case 'o': case 's': case 't':
    case ')': case 'u': case 0x81: case 0x85: case 0x86: case 0x87: case 0x88: case 0x89:
    case 0x8f: case 0x90: case 0x91: case 0x92: case 0x93: case 0x94: case 0x97: case 0x98:
      return {0};
    // Fixed-size argument.
    case 'K': case 'h': case 'q': case 0x80: case 0x82: return {1};
    case 'M': case 0x83: return {2};
    case 'J': case 'j': case 'r': case 0x84: return {4};
    case 'G': return {8};
    // A length, then that many bytes.
    case 'U': case 'C': case 0x8c: case 0x8a: return {1, true};
    case 'T': case 'X': case 'B': case 0x8b: return {4, true};
    case 0x8d: case 0x8e: case 0x96: return {8, true};
    // Text lines.
    case 'F': case 'I': case 'L': case 'P': case 'S': case 'V': case 'g': case 'p': return {kLine};
    case 'c': case 'i': return {kLine, false, 2};
    case 0x95: return {8};  // FRAME: the length of the frame that follows (checked below)
    default: return {};
  }
}

Status TooBig(std::string_view record, size_t at, uint64_t need, size_t have) {
  return Status::Error("pickle record '" + std::string(record) + "' claims " + std::to_string(need) +
                       " bytes at offset " + std::to_string(at) + " where " + std::to_string(have) +
                       " remain (truncated or corrupt file)");
}

struct Entry {
  std::string name;
  uint64_t method = 0, compressed = 0, size = 0, local = 0;
};

// The zip64 extended-information extra field replaces those 32-bit fields
// that hold 0xffffffff, in the order uncompressed size, compressed size,
// local header offset.
bool ApplyZip64(std::string_view extra, Entry* e, bool big_size, bool big_comp, bool big_local) {
  size_t at = 0;
  while (at + 4 <= extra.size()) {
    const uint64_t id = Le(extra, at, 2), len = Le(extra, at + 2, 2);
    at += 4;
    if (len > extra.size() - at) return false;
    if (id == 1) {
      size_t f = at;
      const size_t end = at + len;
      for (auto [big, field] : {std::pair{big_size, &e->size}, {big_comp, &e->compressed}, {big_local, &e->local}}) {
        if (!big) continue;
        if (f + 8 > end) return false;
        *field = Le(extra, f, 8);
        f += 8;
      }
      return true;
    }
    at += len;
  }
  return !(big_size || big_comp || big_local);
}

Status Corrupt(const std::string& what) {
  return Status::Error("corrupt zip archive: " + what + " (truncated or damaged file)");
}

}  // namespace

Status CheckPickleBounds(std::string_view p, std::string_view record) {
  size_t at = 0;
  while (at < p.size()) {
    const unsigned char c = static_cast<unsigned char>(p[at]);
    const size_t op_at = at++;
    if (c == '.') return Status();
    const Op op = Lookup(c);
    if (op.fixed == kUnknown) return Status();
    if (op.fixed == kLine) {
      for (int i = 0; i < op.lines; ++i) {
        const size_t nl = p.find('\n', at);
        if (nl == std::string_view::npos) return TooBig(record, op_at, p.size() - at + 1, p.size() - at);
        at = nl + 1;
      }
      continue;
    }
    const size_t fixed = static_cast<size_t>(op.fixed);
    if (fixed > p.size() - at) return TooBig(record, op_at, fixed, p.size() - at);
    const uint64_t arg = fixed ? Le(p, at, op.fixed) : 0;
    at += fixed;
    if (c == 0x95 && arg > p.size() - at) return TooBig(record, op_at, arg, p.size() - at);
    if (!op.prefixed) continue;
    if (arg > p.size() - at) return TooBig(record, op_at, arg, p.size() - at);
    at += static_cast<size_t>(arg);
  }
  return Status();  // no STOP: the unpickler reports the truncation itself
}

TorchFileKind SniffTorchFile(std::string_view head) {
  if (head.size() >= 4 && Le(head, 0, 4) == kLocalSig) return TorchFileKind::kZip;
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 &&
      head[1] <= 5) {
    return TorchFileKind::kPickle;  // PROTO 2..5
  }
  return TorchFileKind::kOther;
}

Status CheckTorchArchive(std::string_view b) {
  switch (SniffTorchFile(b)) {
    case TorchFileKind::kPickle: return CheckPickleBounds(b, "(file)");
    case TorchFileKind::kOther: return Status();  // LibTorch refuses it
    case TorchFileKind::kZip: break;
  }
  if (b.size() < kEndSize) return Status();  // too short for a zip: LibTorch refuses it
  // The end-of-central-directory record: the last signature within the
  // trailing 64 KiB comment window.
  size_t end = std::string_view::npos;
  const size_t lowest = b.size() > kEndSize + 0xffff ? b.size() - kEndSize - 0xffff : 0;
  for (size_t at = b.size() - kEndSize + 1; at-- > lowest;) {
    if (Le(b, at, 4) == kEndSig) {
      end = at;
      break;
    }
  }
  if (end == std::string_view::npos) return Corrupt("no end-of-central-directory record");
  uint64_t count = Le(b, end + 10, 2), cd_size = Le(b, end + 12, 4), cd_at = Le(b, end + 16, 4);
  if (count == 0xffff || cd_size == kNone32 || cd_at == kNone32) {
    if (end < kLocator64Size || Le(b, end - kLocator64Size, 4) != kLocator64Sig) {
      return Corrupt("zip64 sizes without a zip64 locator");
    }
    const uint64_t e64 = Le(b, end - kLocator64Size + 8, 8);
    if (e64 > b.size() || b.size() - e64 < kEnd64Size || Le(b, e64, 4) != kEnd64Sig) {
      return Corrupt("zip64 end record out of bounds");
    }
    count = Le(b, e64 + 32, 8);
    cd_size = Le(b, e64 + 40, 8);
    cd_at = Le(b, e64 + 48, 8);
  }
  if (cd_at > end || cd_size > end - cd_at) return Corrupt("central directory out of bounds");
  if (count > cd_size / kCentralSize) return Corrupt("more entries than the central directory holds");
  size_t at = cd_at;
  const size_t cd_end = cd_at + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (cd_end - at < kCentralSize || Le(b, at, 4) != kCentralSig) return Corrupt("bad central directory entry");
    Entry e;
    e.method = Le(b, at + 10, 2);
    e.compressed = Le(b, at + 20, 4);
    e.size = Le(b, at + 24, 4);
    const size_t name_len = Le(b, at + 28, 2), extra_len = Le(b, at + 30, 2), comment_len = Le(b, at + 32, 2);
    e.local = Le(b, at + 42, 4);
    if (cd_end - at - kCentralSize < name_len + extra_len + comment_len) return Corrupt("bad central directory entry");
    e.name.assign(b.substr(at + kCentralSize, name_len));
    if (!ApplyZip64(b.substr(at + kCentralSize + name_len, extra_len), &e, e.size == kNone32,
                    e.compressed == kNone32, e.local == kNone32)) {
      return Corrupt("record '" + e.name + "': bad zip64 field");
    }
    at += kCentralSize + name_len + extra_len + comment_len;
    // Stored (0): the stated size is the size. Deflate (8, TorchScript's
    // code files): it cannot expand more than 1032:1, so a larger stated size
    // is a lie that would only make LibTorch allocate it.
    if (e.method == 0 && e.compressed != e.size) return Corrupt("record '" + e.name + "': stored sizes disagree");
    if (e.method == 8 && e.size / kMaxInflate > e.compressed) {
      return Corrupt("record '" + e.name + "' claims " + std::to_string(e.size) + " bytes from " +
                     std::to_string(e.compressed) + " deflated ones");
    }
    if (e.method != 0 && e.method != 8) {
      return Status::Error("record '" + e.name + "' uses zip compression method " + std::to_string(e.method) +
                           "; LibTorch archives are stored or deflated");
    }
    if (e.local > cd_at || cd_at - e.local < kLocalSize || Le(b, e.local, 4) != kLocalSig) {
      return Corrupt("record '" + e.name + "': local header out of bounds");
    }
    const uint64_t data = e.local + kLocalSize + Le(b, e.local + 26, 2) + Le(b, e.local + 28, 2);
    if (data > cd_at || e.compressed > cd_at - data) {
      return Corrupt("record '" + e.name + "' claims " + std::to_string(e.compressed) + " bytes past the archive's end");
    }
    // data.pkl and constants.pkl are stored pickles (TorchScript's deflated
    // *.debug_pkl are read only to print source locations).
    const bool pickle = e.name.size() >= 3 && e.name.compare(e.name.size() - 3, 3, "pkl") == 0;
    if (pickle && e.method == 0) {
      if (Status st = CheckPickleBounds(b.substr(data, e.size), e.name); !st.ok()) return st;
    }
  }
  return Status();
}

}  // namespace lpsim
