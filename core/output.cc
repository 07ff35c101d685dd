#include "core/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <streambuf>
#include <string>

namespace lpsim {
namespace {

std::string Reason(int err) { return std::strerror(err); }

// A file descriptor with a 256 KiB buffer under both a raw Write and a
// std::ostream. The first error sticks; later writes are no-ops.
class FdSink final : public OutputSink, private std::streambuf {
 public:
  FdSink(int fd, std::string path) : fd_(fd), path_(std::move(path)), stream_(this) {
    setp(buffer_, buffer_ + sizeof buffer_);
  }

  Status Write(const void* data, size_t n) override {
    if (!Flush()) return status_;
    WriteRaw(static_cast<const char*>(data), n);
    return status_;
  }
  std::ostream& stream() override { return stream_; }

  // Pending bytes out; false (and status_ set) on an error.
  bool Flush() {
    const size_t n = static_cast<size_t>(pptr() - pbase());
    if (n > 0) WriteRaw(pbase(), n);
    setp(buffer_, buffer_ + sizeof buffer_);
    return status_.ok();
  }
  const Status& status() const { return status_; }

 private:
  void WriteRaw(const char* p, size_t n) {
    while (n > 0 && status_.ok()) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        status_ = Status::Failed(path_ + ": write failed: " + Reason(w < 0 ? errno : EIO));
        return;
      }
      p += w;
      n -= static_cast<size_t>(w);
      written_ += static_cast<size_t>(w);
    }
    StartWriteback();
  }
  // Asks the kernel to start writing out every kWritebackBytes written, so
  // the disk works while the writer computes the next bytes and the final
  // fsync finds little left (Linux; elsewhere, and for pipes and devices, the
  // call fails harmlessly and is not retried).
  void StartWriteback() {
#if defined(__linux__)
    constexpr size_t kWritebackBytes = size_t{8} << 20;
    if (!writeback_ok_ || written_ - kicked_ < kWritebackBytes) return;
    writeback_ok_ = ::sync_file_range(fd_, static_cast<off64_t>(kicked_),
                                      static_cast<off64_t>(written_ - kicked_),
                                      SYNC_FILE_RANGE_WRITE) == 0;
    kicked_ = written_;
#endif
  }
  int overflow(int c) override {
    if (!Flush()) return traits_type::eof();
    if (c != traits_type::eof()) {
      *pptr() = static_cast<char>(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const size_t room = static_cast<size_t>(epptr() - pptr());
    if (static_cast<size_t>(n) <= room) {
      std::memcpy(pptr(), s, static_cast<size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    if (!Flush()) return 0;
    WriteRaw(s, static_cast<size_t>(n));
    return status_.ok() ? n : 0;
  }
  int sync() override { return Flush() ? 0 : -1; }

  int fd_;
  size_t written_ = 0, kicked_ = 0;  // bytes written; bytes sent to writeback
  bool writeback_ok_ = true;
  std::string path_;
  Status status_;
  std::ostream stream_;
  char buffer_[1 << 18];
};

// Runs body over an open descriptor; the stream's errors and pending bytes
// are folded into the result.
Status RunBody(FdSink& sink, const std::function<Status(OutputSink&)>& body) {
  Status s = body(sink);
  sink.stream().flush();
  if (!sink.Flush() && s.ok()) return sink.status();
  if (s.ok() && !sink.status().ok()) return sink.status();
  return s;
}

// Devices, pipes, sockets and "-": written in place.
Status WriteDirect(const std::string& path, const std::function<Status(OutputSink&)>& body) {
  const bool stdout_ = path == "-";
  const int fd = stdout_ ? STDOUT_FILENO : ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::Failed(path + ": cannot open for writing: " + Reason(errno));
  auto sink = std::make_unique<FdSink>(fd, stdout_ ? std::string("standard output") : path);
  Status s = RunBody(*sink, body);
  if (!stdout_ && ::close(fd) != 0 && s.ok()) {
    s = Status::Failed(path + ": close failed: " + Reason(errno));
  }
  return s;
}

}  // namespace

Status WriteOutput(const std::string& path, const std::function<Status(OutputSink&)>& body) {
  if (path.empty()) return Status::Error("the output path is empty: name a file");
  struct stat st {};
  if (path == "-" || (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
    return WriteDirect(path, body);
  }
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::Error(path + " is a directory: name a file to write");
  }
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid())) + "." +
                          std::to_string(counter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    return Status::Failed("cannot write " + path + ": " + Reason(err) +
                          (err == ENOENT ? " (its directory does not exist)" : "") +
                          "; nothing was written");
  }
  auto sink = std::make_unique<FdSink>(fd, path);
  Status s = RunBody(*sink, body);
  // On the disk before the rename, so a crash cannot leave the name on data
  // that never reached it.
  if (s.ok() && ::fsync(fd) != 0) s = Status::Failed(path + ": fsync failed: " + Reason(errno));
  if (::close(fd) != 0 && s.ok()) s = Status::Failed(path + ": close failed: " + Reason(errno));
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    s = Status::Failed("cannot rename " + tmp + " to " + path + ": " + Reason(errno));
  }
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

Status WriteOutput(const std::string& path, const std::string& bytes) {
  return WriteOutput(path, [&](OutputSink& o) { return o.Write(bytes.data(), bytes.size()); });
}

namespace {
// The folder `path` would be written in: it must exist, be a folder, and
// let this process create files in it.
Status CheckFolder(const std::string& path, const std::string& what) {
  std::string folder = std::filesystem::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    const int err = errno;
    return Status::Error(what + " " + path + ": its folder " + folder + " cannot be used (" + Reason(err) +
                         "); create the folder or name a file in one that exists");
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::Error(what + " " + path + ": " + folder + " is not a folder; name a file in a folder");
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    return Status::Error(what + " " + path + ": cannot create files in " + folder + " (" + Reason(err) +
                         "); name a file in a folder you can write to");
  }
  return Status();
}
}  // namespace

Status CheckOutput(const std::string& path, const std::vector<std::string>& inputs,
                   const std::vector<std::string>& protect, const std::string& what) {
  if (path.empty()) return Status::Error(what + " is empty: name a file to write");
  if (path == "-") return Status();
  // A protected name is refused whether or not it exists yet (writing a
  // run's -wal journal would corrupt the run later).
  auto canonical = [](const std::string& p) {
    std::error_code ec;
    std::filesystem::path c = std::filesystem::weakly_canonical(p, ec);
    return ec ? std::filesystem::path(p).lexically_normal() : c;
  };
  for (const std::string& p : protect) {
    if (canonical(p) == canonical(path)) {
      return Status::Error(what + " " + path + " is " + p +
                           ", which this command must not replace; choose another output file");
    }
  }
  struct stat out {};
  const bool exists = ::stat(path.c_str(), &out) == 0;
  if (exists && S_ISDIR(out.st_mode)) return Status::Error(what + " " + path + " is a directory: name a file");
  // A new file, or a regular one (replaced through a temporary file beside
  // it), needs a folder that exists and takes new files: refused now, not
  // after the command's work.
  if (!exists) return CheckFolder(path, what);
  if (S_ISREG(out.st_mode)) {
    Status folder = CheckFolder(path, what);
    if (!folder.ok()) return folder;
  }
  auto same = [&](const std::string& other) {
    struct stat st {};
    return ::stat(other.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino;
  };
  // Devices, pipes and sockets are written in place and never replaced;
  // only a regular file can be an input that a write would destroy.
  if (!S_ISREG(out.st_mode)) return Status();
  for (const std::string& in : inputs) {
    if (same(in)) {
      return Status::Error(what + " " + path + " is the input " + in +
                           ": writing it would destroy the input; choose another output file");
    }
  }
  for (const std::string& p : protect) {
    if (same(p)) {
      return Status::Error(what + " " + path + " is " + p +
                           ", which this command must not replace; choose another output file");
    }
  }
  return Status();
}

}  // namespace lpsim
