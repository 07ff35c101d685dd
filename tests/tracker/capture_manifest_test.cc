// ParseCaptureManifest: what WriteCapture writes reads back; a manifest with a
// field of the wrong type, out of range or of another version is refused with
// a message naming the field (these were found by
// fuzz/capture_manifest_fuzz.cc: "step": 1e300 was converted to int64 with
// undefined behaviour, and a wrong type escaped as a raw JSON exception).
#include "tracker/capture_manifest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace lpsim {
namespace {

TEST(CaptureManifest, ReadsWhatTheWriterWrites) {
  StatusOr<CaptureManifest> m = ParseCaptureManifest(R"({
    "lpsim_capture": 1, "step": 41, "model": "mlp", "reason": "nonfinite: fc2.weight",
    "loss": null, "lr": 0.001, "has_batch": true, "update_applied": false,
    "files": ["manifest.json", "model.pt"]})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->step, 41);
  EXPECT_EQ(m->model, "mlp");
  EXPECT_EQ(m->reason, "nonfinite: fc2.weight");
  EXPECT_TRUE(std::isnan(m->loss));
  EXPECT_EQ(m->lr, 0.001);
  EXPECT_TRUE(m->has_batch);
  EXPECT_FALSE(m->update_applied);
}

TEST(CaptureManifest, OptionalFieldsKeepTheirDefaults) {
  StatusOr<CaptureManifest> m = ParseCaptureManifest(R"({"lpsim_capture": 1})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->step, 0);
  EXPECT_TRUE(m->model.empty());
  EXPECT_TRUE(std::isnan(m->loss));
  EXPECT_FALSE(m->has_batch);
}

TEST(CaptureManifest, RefusesBadFieldsNamingThem) {
  const std::pair<const char*, const char*> cases[] = {
      {"step", R"({"lpsim_capture": 1, "step": 1e300})"},
      {"step", R"({"lpsim_capture": 1, "step": -1})"},
      {"step", R"({"lpsim_capture": 1, "step": 2.5})"},
      {"step", R"({"lpsim_capture": 1, "step": 18446744073709551615})"},
      {"step", R"({"lpsim_capture": 1, "step": "three"})"},
      {"model", R"({"lpsim_capture": 1, "model": ["mlp"]})"},
      {"reason", R"({"lpsim_capture": 1, "reason": 3})"},
      {"loss", R"({"lpsim_capture": 1, "loss": "nan"})"},
      {"lr", R"({"lpsim_capture": 1, "lr": {}})"},
      {"has_batch", R"({"lpsim_capture": 1, "has_batch": 1})"},
      {"update_applied", R"({"lpsim_capture": 1, "update_applied": "no"})"},
      {"files", R"({"lpsim_capture": 1, "files": "model.pt"})"},
      {"files", R"({"lpsim_capture": 1, "files": [3]})"},
      {"files", R"({"lpsim_capture": 1, "files": ["../model.pt"]})"},
      {"files", R"({"lpsim_capture": 1, "files": [".."]})"},
      {"files", R"({"lpsim_capture": 1, "files": [""]})"}};
  for (const auto& [field, json] : cases) {
    StatusOr<CaptureManifest> m = ParseCaptureManifest(json);
    ASSERT_FALSE(m.ok()) << json;
    EXPECT_NE(m.status().message().find(std::string("'") + field + "'"), std::string::npos)
        << m.status().message();
  }
}

// The list of files the capture wrote: Replay::Load requires each of them.
TEST(CaptureManifest, ReadsTheFileList) {
  StatusOr<CaptureManifest> m =
      ParseCaptureManifest(R"({"lpsim_capture": 1, "files": ["model.pt", "rng.pt", "targets.pt"]})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->files, (std::vector<std::string>{"model.pt", "rng.pt", "targets.pt"}));
  m = ParseCaptureManifest(R"({"lpsim_capture": 1})");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->files.empty());
}

TEST(CaptureManifest, RefusesOtherVersionsAndOtherDocuments) {
  StatusOr<CaptureManifest> v2 = ParseCaptureManifest(R"({"lpsim_capture": 2})");
  ASSERT_FALSE(v2.ok());
  EXPECT_NE(v2.status().message().find("version 2"), std::string::npos) << v2.status().message();
  for (const char* text : {"", "{", "[1, 2]", R"({"step": 3})", "null"}) {
    StatusOr<CaptureManifest> m = ParseCaptureManifest(text);
    EXPECT_FALSE(m.ok()) << text;
    EXPECT_EQ(m.ok() ? std::string::npos : m.status().message().find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace lpsim
