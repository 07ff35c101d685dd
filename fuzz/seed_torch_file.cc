// Writes the LibTorch seeds of the torch file fuzzer (fuzz/corpus/torch_file/):
// what torch::save and torch::pickle_save write for a tensor, a vector of
// tensors of several dtypes and a nested dict, plus a cut-short archive.
//
//   lpsim_fuzz_seed_torch_file fuzz/corpus/torch_file
#include <torch/serialize.h>
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

void WriteBytes(const fs::path& p, const std::vector<char>& bytes, size_t n) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  fs::create_directories(out);
  torch::manual_seed(1);
  const torch::Tensor a = torch::randn({2, 3});
  torch::save(a, (out / "tensor.pt").string());
  torch::save(std::vector<torch::Tensor>{a.to(torch::kBFloat16), torch::arange(4, torch::kInt32)},
              (out / "vector.pt").string());
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("fc1.weight", a.to(torch::kHalf));
  dict.insert("fc1.bias", torch::zeros({3}, torch::kDouble));
  c10::impl::GenericList list(c10::AnyType::get());
  list.push_back(a);
  list.push_back(c10::ivalue::Tuple::create({torch::ones({1}), c10::IValue(int64_t{7})}));
  dict.insert("nested", list);
  const std::vector<char> pickle = torch::pickle_save(c10::IValue(dict));
  WriteBytes(out / "pickle_dict.pt", pickle, pickle.size());
  WriteBytes(out / "pickle_cut.pt", pickle, pickle.size() / 2);
  std::ifstream in(out / "tensor.pt", std::ios::binary);
  const std::vector<char> zip((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  WriteBytes(out / "tensor_cut.pt", zip, zip.size() / 2);
  return 0;
}
