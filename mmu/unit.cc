#include "mmu/unit.h"

#include <algorithm>

namespace lpsim {
namespace mmu {

const char* ToString(AlignRounding r) {
  switch (r) {
    case AlignRounding::kTruncate: return "truncate";
    case AlignRounding::kFloor: return "floor";
    case AlignRounding::kNearestEven: return "nearest-even";
  }
  return "?";
}

namespace {

// Citations, short; docs/mmu.md has the full references.
constexpr const char* kFasi = "Fasi et al. 2021";
constexpr const char* kKM = "Khattak & Mikaitis 2025";
constexpr const char* kDeepSeek = "DeepSeek-V3 report 2024";

const std::vector<std::string> kFp8 = {"e4m3fn", "e5m2"};
const std::vector<std::string> kHalf = {"fp16", "bf16"};
const std::vector<std::string> kAll = {"fp32", "tf32", "bf16", "fp16", "e4m3fn", "e5m2"};

const std::vector<OutputMode> kFp32Rz = {{"fp32", Rounding::kTowardZero}};
const std::vector<OutputMode> kFp32RzFp16Rn = {{"fp32", Rounding::kTowardZero},
                                               {"fp16", Rounding::kNearestEven}};

// Carry bits enough for `terms` terms of magnitude below 2^(W+1): the sum of
// n such terms is below n * 2^(W+1), so ceil(log2(n)) bits never wrap.
int CarryFor(int terms) {
  int bits = 0;
  while ((1 << bits) < terms) ++bits;
  return bits;
}

BlockFmaParams Block(int group, int extra_bits, int subgroups = 1) {
  BlockFmaParams p;
  p.group = group;
  p.alignment_bits = 23 + extra_bits;
  p.subgroups = subgroups;
  p.carry_bits = CarryFor(group + 1);
  return p;
}

std::vector<Unit> MakeUnits() {
  std::vector<Unit> u;
  {
    Unit v;
    v.name = "v100";
    v.hardware = "NVIDIA V100 (Volta) tensor cores";
    v.modes.push_back({{"fp16"}, Block(4, 0), kFp32Rz,
                       std::string("group 4, truncation at alignment, round toward zero into "
                                   "fp32, subnormals kept: ") +
                           kFasi + "; 0 extra alignment bits: assumed"});
    u.push_back(v);
  }
  {
    Unit a;
    a.name = "a100";
    a.hardware = "NVIDIA A100 (Ampere) tensor cores";
    a.modes.push_back({kHalf, Block(8, 1), kFp32Rz,
                       std::string("fp16/bf16: group 8, 1 extra alignment bit, truncation, "
                                   "round toward zero into fp32: ") +
                           kKM + ", " + kFasi});
    a.modes.push_back({{"tf32"}, Block(4, 1), kFp32Rz,
                       std::string("tf32: group 4: ") + kFasi +
                           "; alignment bits and rounding as fp16: assumed"});
    u.push_back(a);
  }
  {
    Unit h;
    h.name = "h100";
    h.aliases = {"h200"};
    h.hardware = "NVIDIA H100/H200 (Hopper) tensor cores";
    BlockFmaParams fp8 = Block(32, 0, 2);
    fp8.alignment_bits = 13;
    h.modes.push_back({kFp8, fp8, kFp32RzFp16Rn,
                       std::string("fp8: group 32 as two interleaved 16-element halves, 13 "
                                   "alignment bits (10 fewer than fp32's 23), truncation, round "
                                   "toward zero into fp32 and to nearest into fp16: ") +
                           kKM + "; about 14 bits kept: " + kDeepSeek});
    h.modes.push_back({kHalf, Block(16, 2), kFp32Rz,
                       std::string("fp16/bf16: group 16 and 2 extra bits: assumed (not in the "
                                   "sources at hand); truncation and round toward zero as A100: ") +
                           kKM});
    u.push_back(h);
  }
  {
    Unit h = u.back();
    h.name = "h100-promote128";
    h.aliases = {};
    h.hardware = "H100 fp8 with DeepSeek-V3's promotion to fp32 every 128 products";
    h.modes.resize(1);
    h.modes[0].params.promote_every = 128;
    h.modes[0].outputs = kFp32Rz;
    h.modes[0].source += std::string("; partial sums added to an fp32 accumulator every 128 "
                                     "products: ") +
                         kDeepSeek;
    u.push_back(h);
  }
  {
    Unit b;
    b.name = "b200";
    b.hardware = "NVIDIA B200 (Blackwell) tensor cores";
    b.modes.push_back({kFp8, Block(32, 2), kFp32Rz,
                       std::string("fp8: group 32 with 2 extra alignment bits: ") + kKM +
                           "; one normalization per group, truncation and round toward zero: "
                           "assumed as H100"});
    b.modes.push_back({kHalf, Block(16, 2), kFp32Rz,
                       "fp16/bf16: group 16, 2 extra bits, truncation, round toward zero: "
                       "assumed"});
    u.push_back(b);
  }
  {
    Unit l;
    l.name = "l40s";
    l.hardware = "NVIDIA L40S (Ada Lovelace) tensor cores";
    BlockFmaParams fp8 = Block(32, 0, 2);
    fp8.alignment_bits = 13;
    l.modes.push_back({kFp8, fp8, kFp32RzFp16Rn,
                       "fp8: assumed the same as H100 (Ada's fourth-generation tensor cores; "
                       "not measured in the sources)"});
    l.modes.push_back({kHalf, Block(8, 1), kFp32Rz, "fp16/bf16: assumed the same as A100"});
    u.push_back(l);
  }
  {
    Unit m;
    m.name = "mi300";
    m.hardware = "AMD Instinct MI300 (CDNA3) matrix cores";
    BlockFmaParams fp8 = Block(8, 3);
    BlockFmaParams half = Block(4, 3);
    for (BlockFmaParams* p : {&fp8, &half}) p->align_rounding = AlignRounding::kNearestEven;
    const std::vector<OutputMode> rn = {{"fp32", Rounding::kNearestEven}};
    // CDNA3 takes the FNUZ fp8 formats (AMD MI300 ISA; the mi300-fp8 target
    // stores in them); the OCP ones are accepted too, as CDNA4 takes those.
    m.modes.push_back({{"e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz"}, fp8, rn,
                       "fp8: group 8, 3 extra alignment bits rounded to nearest, round to "
                       "nearest into fp32: assumed (AMD's matrix cores follow other rules than "
                       "NVIDIA's; no bit-level model in the sources); FNUZ inputs: AMD CDNA3 ISA"});
    m.modes.push_back({kHalf, half, rn, "fp16/bf16: group 4, otherwise as fp8: assumed"});
    u.push_back(m);
  }
  {
    Unit f;
    f.name = "fp32-fma";
    f.hardware = "sequential IEEE 754 fp32 FMA (a CUDA-core or CPU loop)";
    f.kind = UnitKind::kFp32Fma;
    f.modes.push_back({kAll, {}, {{"fp32", Rounding::kNearestEven}},
                       "IEEE 754-2019 fusedMultiplyAdd, one product at a time, in k order"});
    u.push_back(f);
  }
  {
    Unit e;
    e.name = "exact";
    e.hardware = "the exact dot product, rounded once";
    e.kind = UnitKind::kExact;
    e.modes.push_back({kAll, {}, {{"fp32", Rounding::kNearestEven}, {"fp16", Rounding::kNearestEven},
                                  {"bf16", Rounding::kNearestEven}},
                       "c + sum a_k b_k summed exactly (Boost.Multiprecision), rounded once"});
    u.push_back(e);
  }
  return u;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Input names compare by the base format ("e4m3fn:sat" is e4m3fn's values).
std::string BaseName(const std::string& name) { return name.substr(0, name.find(':')); }

}  // namespace

bool UnitMode::Accepts(const Format& f) const {
  return std::find(inputs.begin(), inputs.end(), BaseName(f.name())) != inputs.end();
}

StatusOr<Rounding> UnitMode::RoundingFor(const Format& out) const {
  std::vector<std::string> names;
  for (const OutputMode& o : outputs) {
    if (o.format == BaseName(out.name())) return o.rounding;
    names.push_back(o.format);
  }
  return Status::Error("output format '" + out.name() + "' is not one this unit writes; use " +
                       Join(names));
}

StatusOr<const UnitMode*> Unit::ModeFor(const Format& a, const Format& b) const {
  std::vector<std::string> all;
  for (const UnitMode& m : modes) {
    if (m.Accepts(a) && m.Accepts(b)) return &m;
    all.push_back("{" + Join(m.inputs) + "}");
  }
  return Status::Error("unit '" + name + "' does not take inputs " + a.name() + " x " + b.name() +
                       "; both must come from one of " + Join(all));
}

const std::vector<Unit>& Units() {
  static const std::vector<Unit> kUnits = MakeUnits();
  return kUnits;
}

StatusOr<const Unit*> FindUnit(const std::string& name) {
  std::vector<std::string> names;
  for (const Unit& u : Units()) {
    if (u.name == name) return &u;
    for (const std::string& a : u.aliases) {
      if (a == name) return &u;
    }
    names.push_back(u.name);
  }
  return Status::Error("unknown matrix-multiply unit '" + name + "'; use one of " + Join(names) +
                       " (h200 = h100)");
}

const Format& Fp32Format() {
  static const Format kFp32 = *ParseFormat("fp32");
  return kFp32;
}

}  // namespace mmu
}  // namespace lpsim
