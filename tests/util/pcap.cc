// SPDX-License-Identifier: Apache-2.0
#include "tests/util/pcap.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/status_macros.h"

namespace zg::testutil {
namespace {

constexpr uint32_t kMagicMicros = 0xa1b2c3d4;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

struct PcapCloser {
  void operator()(pcap_t* p) const { pcap_close(p); }
};
using PcapHandle = std::unique_ptr<pcap_t, PcapCloser>;

// libpcap scales every record to the precision asked for and does not say
// which one a classic file had: its magic does.
PcapTimeResolution FileResolution(absl::Span<const uint8_t> bytes) {
  uint32_t magic = 0;
  if (bytes.size() >= 4) std::memcpy(&magic, bytes.data(), 4);
  return magic == kMagicMicros || magic == __builtin_bswap32(kMagicMicros)
             ? PcapTimeResolution::kMicroseconds
             : PcapTimeResolution::kNanoseconds;
}

absl::Status CheckWritable(const PcapFile& file) {
  for (size_t i = 0; i < file.records.size(); ++i) {
    const PcapRecord& rec = file.records[i];
    if (rec.timestamp_ns < 0 ||
        rec.timestamp_ns / kNanosPerSecond > int64_t{UINT32_MAX}) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "record %d: timestamp %d ns outside what pcap holds (1970..2106)", i,
          rec.timestamp_ns));
    }
    if (rec.data.size() > kPcapMaxRecordBytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("record %d: %d bytes exceeds %d", i, rec.data.size(),
                          kPcapMaxRecordBytes));
    }
    if (rec.original_length != 0 && rec.original_length < rec.data.size()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("record %d: original length %d < %d captured bytes",
                          i, rec.original_length, rec.data.size()));
    }
  }
  return absl::OkStatus();
}

// Writes `file` through libpcap's dumper to `out`, which it closes.
absl::Status Dump(const PcapFile& file, FILE* out) {
  const bool nanos = file.resolution == PcapTimeResolution::kNanoseconds;
  PcapHandle dead(pcap_open_dead_with_tstamp_precision(
      static_cast<int>(file.link_type), static_cast<int>(file.snaplen),
      nanos ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO));
  if (dead == nullptr) {
    fclose(out);
    return absl::InternalError("pcap_open_dead failed");
  }
  pcap_dumper_t* dumper = pcap_dump_fopen(dead.get(), out);
  if (dumper == nullptr) {
    fclose(out);
    return absl::InternalError(
        absl::StrCat("pcap_dump_fopen: ", pcap_geterr(dead.get())));
  }
  for (const PcapRecord& rec : file.records) {
    const int64_t frac_ns = rec.timestamp_ns % kNanosPerSecond;
    pcap_pkthdr h = {};
    h.ts.tv_sec = rec.timestamp_ns / kNanosPerSecond;
    h.ts.tv_usec = nanos ? frac_ns : frac_ns / 1000;  // NANO: nanoseconds
    h.caplen = static_cast<bpf_u_int32>(rec.data.size());
    h.len = rec.original_length == 0 ? h.caplen : rec.original_length;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &h, rec.data.data());
  }
  const bool flushed = pcap_dump_flush(dumper) == 0;
  pcap_dump_close(dumper);
  if (!flushed) {
    return absl::DataLossError(absl::StrCat("writing pcap: ", strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PcapFile> ParsePcap(absl::Span<const uint8_t> bytes) {
  if (bytes.empty()) return absl::InvalidArgumentError("empty pcap file");
  FILE* in = fmemopen(const_cast<uint8_t*>(bytes.data()), bytes.size(), "rb");
  if (in == nullptr) {
    return absl::InternalError(absl::StrCat("fmemopen: ", strerror(errno)));
  }
  char err[PCAP_ERRBUF_SIZE] = "";
  PcapHandle p(pcap_fopen_offline_with_tstamp_precision(
      in, PCAP_TSTAMP_PRECISION_NANO, err));
  if (p == nullptr) {  // `in` is ours to close only when libpcap failed
    fclose(in);
    return absl::InvalidArgumentError(absl::StrCat("not a pcap file: ", err));
  }
  PcapFile file;
  file.link_type = static_cast<uint32_t>(pcap_datalink(p.get()));
  file.snaplen = static_cast<uint32_t>(pcap_snapshot(p.get()));
  file.resolution = FileResolution(bytes);
  file.byte_swapped = pcap_is_swapped(p.get()) == 1;
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  int rc;
  while ((rc = pcap_next_ex(p.get(), &h, &data)) == 1) {
    PcapRecord rec;
    rec.timestamp_ns = int64_t{h->ts.tv_sec} * kNanosPerSecond + h->ts.tv_usec;
    rec.original_length = h->len;
    rec.data.assign(data, data + h->caplen);
    file.records.push_back(std::move(rec));
  }
  if (rc != PCAP_ERROR_BREAK) {  // not the end of the file
    return absl::InvalidArgumentError(absl::StrCat(
        "record ", file.records.size(), ": ", pcap_geterr(p.get())));
  }
  return file;
}

absl::StatusOr<PcapFile> ReadPcapFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open pcap ", path, ": ", std::strerror(errno)));
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("error reading pcap ", path));
  }
  absl::StatusOr<PcapFile> file = ParsePcap(bytes);
  if (!file.ok()) {
    return absl::Status(file.status().code(),
                        absl::StrCat(path, ": ", file.status().message()));
  }
  return file;
}

absl::StatusOr<std::vector<uint8_t>> SerializePcap(const PcapFile& file) {
  ZG_RETURN_IF_ERROR(CheckWritable(file));
  char* buf = nullptr;
  size_t len = 0;
  FILE* out = open_memstream(&buf, &len);
  if (out == nullptr) {
    return absl::InternalError(
        absl::StrCat("open_memstream: ", strerror(errno)));
  }
  const absl::Status dumped = Dump(file, out);  // closes `out`
  std::vector<uint8_t> bytes(buf, buf + len);
  free(buf);
  ZG_RETURN_IF_ERROR(dumped);
  return bytes;
}

absl::Status WritePcapFile(const std::string& path, const PcapFile& file) {
  ZG_RETURN_IF_ERROR(CheckWritable(file));
  FILE* out = fopen(path.c_str(), "wb");
  if (out == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  const absl::Status dumped = Dump(file, out);
  if (!dumped.ok()) {
    return absl::Status(dumped.code(),
                        absl::StrCat(path, ": ", dumped.message()));
  }
  return absl::OkStatus();
}

PcapFile EthernetPcap(const std::vector<std::vector<uint8_t>>& frames,
                      int64_t first_timestamp_ns) {
  PcapFile file;
  file.link_type = kLinkTypeEthernet;
  file.resolution = PcapTimeResolution::kNanoseconds;
  for (size_t i = 0; i < frames.size(); ++i) {
    file.records.push_back(
        {.timestamp_ns = first_timestamp_ns + static_cast<int64_t>(i) * 1000,
         .original_length = 0,
         .data = frames[i]});
  }
  return file;
}

}  // namespace zg::testutil
