// SPDX-License-Identifier: Apache-2.0
#include "tests/util/pcap.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::testutil {
namespace pcap_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Builds pcap bytes by hand in either byte order, independent of libpcap.
class HandBuilt {
 public:
  explicit HandBuilt(bool big_endian) : big_(big_endian) {}
  HandBuilt& U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      const int shift = big_ ? 24 - 8 * i : 8 * i;
      bytes_.push_back(static_cast<uint8_t>(v >> shift));
    }
    return *this;
  }
  HandBuilt& U16(uint16_t v) {
    bytes_.push_back(static_cast<uint8_t>(big_ ? v >> 8 : v));
    bytes_.push_back(static_cast<uint8_t>(big_ ? v : v >> 8));
    return *this;
  }
  HandBuilt& Raw(std::vector<uint8_t> b) {
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return *this;
  }
  HandBuilt& Header(uint32_t magic, uint32_t link = 1) {
    return U32(magic).U16(2).U16(4).U32(0).U32(0).U32(65535).U32(link);
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  bool big_;
  std::vector<uint8_t> bytes_;
};

TEST(PcapTest, ParsesBigEndianMicrosecondFile) {
  HandBuilt b(/*big_endian=*/true);
  b.Header(0xa1b2c3d4).U32(1'700'000'000).U32(123'456).U32(3).U32(60);
  b.Raw({0xaa, 0xbb, 0xcc});
  absl::StatusOr<PcapFile> f = ParsePcap(b.bytes());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->byte_swapped);  // this test runs on little-endian x86
  EXPECT_EQ(f->resolution, PcapTimeResolution::kMicroseconds);
  EXPECT_EQ(f->link_type, kLinkTypeEthernet);
  EXPECT_EQ(f->snaplen, 65535u);
  ASSERT_EQ(f->records.size(), 1u);
  EXPECT_EQ(f->records[0].timestamp_ns, 1'700'000'000'123'456'000);
  EXPECT_EQ(f->records[0].original_length, 60u);
  EXPECT_THAT(f->records[0].data, ElementsAre(0xaa, 0xbb, 0xcc));
}

TEST(PcapTest, ParsesLittleEndianNanosecondFileWithEmptyRecord) {
  HandBuilt b(/*big_endian=*/false);
  b.Header(0xa1b23c4d).U32(5).U32(999'999'999).U32(0).U32(0);
  b.U32(6).U32(1).U32(1).U32(1).Raw({0x42});
  absl::StatusOr<PcapFile> f = ParsePcap(b.bytes());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->byte_swapped);
  EXPECT_EQ(f->resolution, PcapTimeResolution::kNanoseconds);
  ASSERT_EQ(f->records.size(), 2u);
  EXPECT_EQ(f->records[0].timestamp_ns, 5'999'999'999);
  EXPECT_TRUE(f->records[0].data.empty());
  EXPECT_EQ(f->records[1].timestamp_ns, 6'000'000'001);
  EXPECT_THAT(f->records[1].data, ElementsAre(0x42));
}

TEST(PcapTest, BigEndianNanosecondMagicAndFcsBitsInLinkType) {
  HandBuilt b(/*big_endian=*/true);
  b.Header(0xa1b23c4d, /*link=*/0x10000000 | 1);
  absl::StatusOr<PcapFile> f = ParsePcap(b.bytes());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->byte_swapped);
  EXPECT_EQ(f->resolution, PcapTimeResolution::kNanoseconds);
  EXPECT_EQ(f->link_type, kLinkTypeEthernet);
  EXPECT_TRUE(f->records.empty());
}

TEST(PcapTest, RoundTripsBothResolutions) {
  for (PcapTimeResolution res :
       {PcapTimeResolution::kMicroseconds, PcapTimeResolution::kNanoseconds}) {
    PcapFile in;
    in.resolution = res;
    in.records.push_back({.timestamp_ns = 1'700'000'000'000'001'000,
                          .original_length = 100,
                          .data = {1, 2, 3, 4}});
    in.records.push_back({.timestamp_ns = 0, .data = {}});
    absl::StatusOr<std::vector<uint8_t>> bytes = SerializePcap(in);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(bytes->size(),
              kPcapFileHeaderBytes + 2 * kPcapRecordHeaderBytes + 4);
    absl::StatusOr<PcapFile> out = ParsePcap(*bytes);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->resolution, res);
    ASSERT_EQ(out->records.size(), 2u);
    EXPECT_EQ(out->records[0].timestamp_ns, in.records[0].timestamp_ns);
    EXPECT_EQ(out->records[0].original_length, 100u);
    EXPECT_EQ(out->records[0].data, in.records[0].data);
    EXPECT_EQ(out->records[1].original_length, 0u);
  }
}

TEST(PcapTest, MicrosecondWriterTruncatesToMicroseconds) {
  PcapFile in;
  in.resolution = PcapTimeResolution::kMicroseconds;
  in.records.push_back({.timestamp_ns = 1'000'000'999'999, .data = {7}});
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializePcap(in);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<PcapFile> out = ParsePcap(*bytes);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->records[0].timestamp_ns, 1'000'000'999'000);
}

TEST(PcapTest, SerializeRejectsUnrepresentableRecords) {
  PcapFile f;
  f.records.push_back({.timestamp_ns = -1, .data = {}});
  EXPECT_THAT(SerializePcap(f).status().message(), HasSubstr("1970..2106"));
  f.records[0].timestamp_ns = (int64_t{UINT32_MAX} + 1) * 1'000'000'000;
  EXPECT_FALSE(SerializePcap(f).ok());
  f.records[0] = {.timestamp_ns = 0, .original_length = 2, .data = {1, 2, 3}};
  EXPECT_THAT(SerializePcap(f).status().message(),
              HasSubstr("original length 2 < 3"));
  f.records[0] = {.data = std::vector<uint8_t>(kPcapMaxRecordBytes + 1)};
  EXPECT_FALSE(SerializePcap(f).ok());
}

struct BadCase {
  const char* name;
  std::vector<uint8_t> bytes;
  const char* message;
};

// What libpcap refuses comes back as an error with libpcap's reason (and
// the record it stopped at), never a partial file.
TEST(PcapTest, RejectsMalformedFilesWithClearMessages) {
  const uint32_t max = kPcapMaxRecordBytes;
  std::vector<BadCase> cases = {
      {"empty", {}, "empty pcap file"},
      {"short header", HandBuilt(false).U32(0xa1b2c3d4).bytes(),
       "tried to read 24 file header bytes"},
      {"unknown magic", HandBuilt(false).Header(0x0a0d0d0b).bytes(),
       "unknown file format"},
      {"version",
       HandBuilt(false)
           .U32(0xa1b2c3d4)
           .U16(1)
           .U16(0)
           .Raw(std::vector<uint8_t>(16))
           .bytes(),
       "archaic pcap savefile format"},
      {"record header",
       HandBuilt(false).Header(0xa1b2c3d4).U32(0).U32(0).U32(0).bytes(),
       "record 0: truncated dump file; tried to read 16 header bytes, only "
       "got 12"},
      {"data",
       HandBuilt(false)
           .Header(0xa1b2c3d4)
           .U32(0)
           .U32(0)
           .U32(5)
           .U32(5)
           .Raw({1, 2, 3})
           .bytes(),
       "tried to read 5 captured bytes, only got 3"},
      {"huge",
       HandBuilt(false)
           .Header(0xa1b2c3d4)
           .U32(0)
           .U32(0)
           .U32(max + 1)
           .U32(max + 1)
           .bytes(),
       "invalid packet capture length 262145"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<PcapFile> f = ParsePcap(c.bytes);
    EXPECT_FALSE(f.ok()) << c.name;
    EXPECT_THAT(std::string(f.status().message()), HasSubstr(c.message))
        << c.name;
  }
}

TEST(PcapTest, SecondRecordTruncatedIsAnErrorNotAPartialFile) {
  HandBuilt b(false);
  b.Header(0xa1b2c3d4).U32(0).U32(0).U32(1).U32(1).Raw({9});
  b.U32(0).U32(0).U32(4).U32(4).Raw({1});
  absl::StatusOr<PcapFile> f = ParsePcap(b.bytes());
  EXPECT_THAT(std::string(f.status().message()),
              HasSubstr("record 1: truncated dump file"));
}

TEST(PcapTest, WritesAndReadsFiles) {
  const std::string path = ::testing::TempDir() + "/pcap_test_" +
                           std::to_string(::getpid()) + ".pcap";
  PcapFile in = EthernetPcap({{1, 2}, {3}}, 10'000);
  ASSERT_TRUE(WritePcapFile(path, in).ok());
  absl::StatusOr<PcapFile> out = ReadPcapFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->records.size(), 2u);
  EXPECT_EQ(out->records[1].timestamp_ns, 11'000);
  EXPECT_THAT(out->records[1].data, ElementsAre(3));
}

TEST(PcapTest, ReadErrorsNameTheFile) {
  absl::StatusOr<PcapFile> f = ReadPcapFile("/nonexistent/x.pcap");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("/nonexistent/x"));
}

}  // namespace
}  // namespace pcap_test
}  // namespace zg::testutil
