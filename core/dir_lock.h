// Directory locks: one writer per directory, across processes.
//
// A run directory (its run.db and the database's journals) or a tree of
// them (lpsim validate's --root) takes one writer at a time: a second one
// removes or rewrites files the first still has open, and both databases
// end corrupt ("database disk image is malformed"). DirLock holds the
// kernel's advisory lock (flock(2)) on the directory itself: no file is
// added to it, and the lock goes when its holder releases it or the
// holding process ends, however it ends (a crash leaves no stale lock).
// Locks are per open directory: a second DirLock on the same directory in
// the same process is refused too.
//
//   StatusOr<DirLock> lock = DirLock::Acquire(dir, "run directory");
//   if (!lock.ok()) return lock.status();  // names the holder's process
#ifndef LPSIM_CORE_DIR_LOCK_H_
#define LPSIM_CORE_DIR_LOCK_H_

#include <string>

#include "core/status.h"

namespace lpsim {

class DirLock {
 public:
  // Creates `dir` (and its parents) when missing and locks it without
  // waiting. Refused (Status::Error) while another DirLock holds it: the
  // message names `what` ("run directory", "--root"), the directory, the
  // holding process (its id and name, from /proc/locks, where it is
  // listed) and what to do. A directory that cannot be created or opened
  // fails with the system's reason.
  static StatusOr<DirLock> Acquire(const std::string& dir, const std::string& what);

  DirLock() = default;  // holds nothing
  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

  bool held() const { return fd_ >= 0; }
  // Releases the lock now (the destructor does it otherwise).
  void Release();

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace lpsim

#endif  // LPSIM_CORE_DIR_LOCK_H_
