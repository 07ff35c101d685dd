// Fuzzes the run database reader (store/run_db.h, RunReader): the input is
// written to a scratch run.db and opened, and every query a report or an
// export makes is run on it. Each one either fails with a message or
// returns; nothing may crash, read out of bounds or hit undefined behaviour.
// The seeds (fuzz/corpus/run_db/) are small real runs, so the mutations land
// in rows, blobs and the schema rather than in SQLite's file header.
#include <string>

#include "fuzz/fuzz_util.h"
#include "store/run_db.h"

namespace {

using namespace lpsim;

template <typename T>
void Touch(const StatusOr<T>& r) {
  if (!r.ok()) FUZZ_CHECK(!r.status().message().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string db = fuzz::ScratchDir() + "/run.db";
  fuzz::WriteFile(db, data, size);
  {
    StatusOr<std::unique_ptr<RunReader>> opened = RunReader::Open(db);
    if (opened.ok()) {
      const RunReader& r = **opened;
      Touch(r.Info());
      Touch(r.Tensors());
      Touch(r.Steps());
      Touch(r.Candidates());
      StatusOr<std::vector<TensorRecord>> recs = r.Records();
      Touch(recs);
      if (recs.ok() && !recs->empty()) {
        RecordFilter one;
        one.name = recs->front().name;
        one.role = recs->front().role;
        Touch(r.Records(one));
        Touch(r.Records(RecordFilter::AtStep(recs->back().step)));
      }
      Touch(r.Scalars());
      Touch(r.Scalars("loss"));
      Touch(r.Findings());
      Touch(r.Captures());
    } else {
      FUZZ_CHECK(!opened.status().message().empty());
    }
  }
  // A header that says WAL mode leaves these behind; the next input must
  // not see them.
  std::remove((db + "-wal").c_str());
  std::remove((db + "-shm").c_str());
  std::remove((db + "-journal").c_str());
  return 0;
}
