// SPDX-License-Identifier: Apache-2.0
// pcap files for tests, on libpcap: read fixtures captured from real peers,
// write frames our serializers build so tshark can dissect them.
//
// libpcap reads classic pcap in both byte orders and both timestamp
// resolutions, and pcapng; what it refuses (a truncated record, a length
// past the link type's maximum) is an error naming the file, never a crash.
// Writes classic pcap in host byte order at the resolution asked for.
//
//   ZG_ASSIGN_OR_RETURN(PcapFile f, ReadPcapFile("tests/data/ntp.pcap"));
//   for (const PcapRecord& r : f.records) Use(r.data);
//
//   PcapFile out;                       // Ethernet, nanoseconds by default
//   out.records.push_back({.timestamp_ns = 0, .data = frame});
//   ZG_RETURN_IF_ERROR(WritePcapFile("/tmp/x.pcap", out));
#ifndef ZG_TESTS_UTIL_PCAP_H_
#define ZG_TESTS_UTIL_PCAP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace zg::testutil {

// DLT_EN10MB (IEEE 802.3 frames, no FCS).
inline constexpr uint32_t kLinkTypeEthernet = 1;
// Largest record we write (libpcap's own limit for Ethernet).
inline constexpr uint32_t kPcapMaxRecordBytes = 262144;
inline constexpr size_t kPcapFileHeaderBytes = 24;
inline constexpr size_t kPcapRecordHeaderBytes = 16;

enum class PcapTimeResolution { kMicroseconds, kNanoseconds };

struct PcapRecord {
  // Capture time in nanoseconds since 1970-01-01T00:00:00Z as the capturing
  // host's CLOCK_REALTIME read it (microsecond files: a multiple of 1000).
  int64_t timestamp_ns = 0;
  // Length of the packet on the wire; >= data.size(). 0 when writing means
  // "data.size()".
  uint32_t original_length = 0;
  std::vector<uint8_t> data;  // the captured bytes (incl_len of them)
};

struct PcapFile {
  uint32_t link_type = kLinkTypeEthernet;  // libpcap's DLT_ value
  uint32_t snaplen = kPcapMaxRecordBytes;
  // The file's own resolution when read (pcapng: kNanoseconds); records
  // are read at nanosecond precision either way.
  PcapTimeResolution resolution = PcapTimeResolution::kNanoseconds;
  bool byte_swapped = false;  // read only: the file was opposite-endian
  std::vector<PcapRecord> records;
};

// Parses a whole pcap or pcapng file held in memory.
absl::StatusOr<PcapFile> ParsePcap(absl::Span<const uint8_t> bytes);

// Reads and parses `path`.
absl::StatusOr<PcapFile> ReadPcapFile(const std::string& path);

// Encodes `file` as classic pcap in host byte order at file.resolution.
// Fails on timestamps a classic pcap cannot hold (before 1970, after 2106),
// on records longer than kPcapMaxRecordBytes and on an original_length below
// the captured size.
absl::StatusOr<std::vector<uint8_t>> SerializePcap(const PcapFile& file);

// Serializes `file` and writes it to `path` (created or truncated).
absl::Status WritePcapFile(const std::string& path, const PcapFile& file);

// Convenience: an Ethernet pcap of `frames`, one microsecond apart starting
// at `first_timestamp_ns`.
PcapFile EthernetPcap(const std::vector<std::vector<uint8_t>>& frames,
                      int64_t first_timestamp_ns = 1'700'000'000'000'000'000);

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_PCAP_H_
