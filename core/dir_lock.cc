#include "core/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace lpsim {
namespace {

// The process that holds the flock on (dev, ino), as /proc/locks lists it
// ("1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"): "process 1234
// (lpsim)", or "another process, or this one" where it is not listed.
std::string Holder(dev_t dev, ino_t ino) {
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string index, kind, mode, access, id;
    long pid = 0;
    if (!(in >> index >> kind)) continue;
    if (kind == "->") {  // a waiter on the lock before it: "2: -> FLOCK ..."
      if (!(in >> kind)) continue;
    }
    if (kind != "FLOCK" || !(in >> mode >> access >> pid >> id)) continue;
    unsigned major_dev = 0, minor_dev = 0;
    unsigned long long inode = 0;
    if (std::sscanf(id.c_str(), "%x:%x:%llu", &major_dev, &minor_dev, &inode) != 3) continue;
    if (inode != static_cast<unsigned long long>(ino) || major_dev != major(dev) || minor_dev != minor(dev)) {
      continue;
    }
    // Its program's name: argv[0] without its folder (comm is cut at 15
    // characters).
    std::string name;
    std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
    std::getline(cmdline, name, '\0');
    name = std::filesystem::path(name).filename().string();
    return "process " + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")");
  }
  return "another process, or this one";
}

}  // namespace

StatusOr<DirLock> DirLock::Acquire(const std::string& dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status::Error("cannot create " + what + " " + dir + ": " + ec.message() +
                         ": check the path and its permissions");
  }
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return Status::Error("cannot open " + what + " " + dir + ": " + std::strerror(errno) +
                         ": check the path and its permissions");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    struct stat st {};
    const bool have_stat = ::fstat(fd, &st) == 0;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Error(what + " " + dir + " is in use by " +
                           (have_stat ? Holder(st.st_dev, st.st_ino) : "another process") +
                           ": two writers on one directory corrupt each other's files: wait for it to end, "
                           "or choose another directory");
    }
    return Status::Failed("cannot lock " + what + " " + dir + ": " + std::strerror(err));
  }
  return DirLock(fd);
}

DirLock::DirLock(DirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirLock::~DirLock() { Release(); }

void DirLock::Release() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor drops the flock
  fd_ = -1;
}

}  // namespace lpsim
