// Bounds checks on a LibTorch file before LibTorch reads it.
//
// LibTorch believes the sizes a file states: the uncompressed size of a zip
// record (it allocates that much before extracting) and the length of a
// string in a pickle (a 1.8 KB file whose pickle claims a 1.75 GB string made
// `lpsim analyze` allocate 1.9 GB). CheckTorchArchive walks the zip's central
// directory and every pickle record (*.pkl, or the whole file when it is a
// bare pickle) and refuses any size that does not fit in the bytes that are
// there, so that what LibTorch then allocates is bounded by the file's size.
// It checks bounds only; whether the content makes sense is LibTorch's call.
//
//   if (SniffTorchFile(bytes) == TorchFileKind::kOther) ...  // not a LibTorch file
//   if (Status st = CheckTorchArchive(bytes); !st.ok()) return Status::Error(path + ": " + st.message());
#ifndef LPSIM_STORE_TORCH_ARCHIVE_H_
#define LPSIM_STORE_TORCH_ARCHIVE_H_

#include <cstddef>
#include <string_view>

#include "core/status.h"

namespace lpsim {

// What a file's first bytes say it is: a zip archive ("PK\3\4": TorchScript,
// torch::save, torch.save since PyTorch 1.6), a pickle of protocol 2..5
// (torch.save's legacy format, torch::pickle_save), or neither. The whole
// file or its first kTorchSniffBytes bytes; fewer bytes are kOther.
enum class TorchFileKind { kZip, kPickle, kOther };
constexpr size_t kTorchSniffBytes = 4;
TorchFileKind SniffTorchFile(std::string_view head);

// Ok, or an error naming the record and the size that does not fit. Zip
// archives (torch::save, torch.jit.save, torch.save) hold stored records and,
// for TorchScript code, deflated ones (whose stated size must be within
// deflate's 1032:1 ratio); a bare pickle (protocol 2-5) is one record.
// Bytes SniffTorchFile calls kOther are Ok: LibTorch refuses them.
Status CheckTorchArchive(std::string_view bytes);

// One pickle's opcodes: every length-prefixed argument, frame and text line
// must end inside `pickle`. Stops at STOP or at an opcode it does not know
// (the unpickler refuses that opcode before reading past it).
Status CheckPickleBounds(std::string_view pickle, std::string_view record);

}  // namespace lpsim

#endif  // LPSIM_STORE_TORCH_ARCHIVE_H_
