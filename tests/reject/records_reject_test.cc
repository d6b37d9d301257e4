// Malformed records files: each bad line is skipped with file:line and what was wrong, every
// good line is still read, and reading changes nothing on disk. Records measured on another
// machine read fine but are refused as this machine's measurements (check_measured_here).
//
// Each tests/reject/records/NAME.jsonl has NAME.expect beside it: "records: N", then one
// "warning: :LINE: text" per expected warning, in order.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/records.h"

namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(TESSERA_SOURCE_DIR) / "tests" / "reject" / "records";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    if (e.path().extension() == ".jsonl") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class BadRecords : public ::testing::TestWithParam<std::string> {};

TEST_P(BadRecords, BadLinesAreSkippedByFileAndLineAndTheRestIsRead) {
  const fs::path file = kCorpus / (GetParam() + ".jsonl");
  std::istringstream expect(read_file(kCorpus / (GetParam() + ".expect")));
  size_t records = 0;
  std::vector<std::string> warnings;
  for (std::string line; std::getline(expect, line);) {
    if (line.rfind("records: ", 0) == 0) records = std::stoul(line.substr(9));
    if (line.rfind("warning: ", 0) == 0) warnings.push_back(line.substr(9));
  }
  const std::string before = read_file(file);
  auto read = tessera::runtime::read_records(file.string());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->records.size(), records) << "a good line was lost or a bad one kept";
  ASSERT_EQ(read->warnings.size(), warnings.size());
  for (size_t i = 0; i < warnings.size(); ++i) {
    const std::string where = warnings[i].substr(0, warnings[i].find(' '));
    const std::string what = warnings[i].substr(where.size() + 1);
    EXPECT_EQ(read->warnings[i].rfind(file.string() + where + " ", 0), 0u) << read->warnings[i];
    EXPECT_NE(read->warnings[i].find(what), std::string::npos) << read->warnings[i];
  }
  EXPECT_EQ(read_file(file), before) << "reading changed the file";
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadRecords, ::testing::ValuesIn(corpus_files()),
                         [](const auto& info) { return info.param; });

TEST(BadRecords, AnotherMachinesRecordsAreNotThisMachinesMeasurements) {
  const std::string path = (kCorpus / "foreign_fingerprint.jsonl").string();
  auto read = tessera::runtime::read_records(path);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->records.size(), 3u);
  auto refused = tessera::runtime::check_measured_here(read->records, path);
  ASSERT_FALSE(refused);
  const std::string& said = refused.error().message;
  EXPECT_EQ(said.rfind(path + ": 3 of 3 records were measured on another machine", 0), 0u) << said;
  EXPECT_NE(said.find("Corpus CPU"), std::string::npos) << said;
  EXPECT_NE(said.find(tessera::runtime::host_fingerprint().id()), std::string::npos) << said;

  // The same records stamped with this machine's fingerprint pass; one foreign line among
  // them is still refused.
  for (auto& r : read->records) r.hardware = tessera::runtime::host_fingerprint();
  EXPECT_TRUE(tessera::runtime::check_measured_here(read->records, path));
  read->records[1].hardware.cores += 1;
  EXPECT_FALSE(tessera::runtime::check_measured_here(read->records, path));
}

}  // namespace
