#include "tests/util/pcap.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/status_macros.h"

namespace zg::testutil {
namespace {

constexpr uint32_t kMagicMicros = 0xa1b2c3d4;
constexpr uint32_t kMagicNanos = 0xa1b23c4d;
constexpr uint16_t kVersionMajor = 2;
constexpr uint16_t kVersionMinor = 4;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

// Sequential bounds-checked reader over the file bytes in the file's byte
// order.
class Reader {
 public:
  Reader(absl::Span<const uint8_t> bytes, bool swapped)
      : bytes_(bytes), swapped_(swapped) {}

  size_t offset() const { return offset_; }
  size_t remaining() const { return bytes_.size() - offset_; }

  uint32_t U32() {
    uint32_t v;
    std::memcpy(&v, bytes_.data() + offset_, 4);
    offset_ += 4;
    return swapped_ ? __builtin_bswap32(v) : v;
  }
  uint16_t U16() {
    uint16_t v;
    std::memcpy(&v, bytes_.data() + offset_, 2);
    offset_ += 2;
    return swapped_ ? __builtin_bswap16(v) : v;
  }
  std::vector<uint8_t> Bytes(size_t n) {
    std::vector<uint8_t> out(bytes_.begin() + offset_,
                             bytes_.begin() + offset_ + n);
    offset_ += n;
    return out;
  }

 private:
  absl::Span<const uint8_t> bytes_;
  bool swapped_;
  size_t offset_ = 0;
};

absl::StatusOr<PcapFile> ParseFileHeader(Reader& r) {
  PcapFile file;
  r.U32();  // magic, already classified by the caller
  const uint16_t major = r.U16();
  const uint16_t minor = r.U16();
  if (major != kVersionMajor || minor != kVersionMinor) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pcap version %d.%d is not 2.4 (pcapng? convert with "
                        "`editcap -F pcap IN OUT`)",
                        major, minor));
  }
  r.U32();  // thiszone: always 0 in practice, ignored by libpcap
  r.U32();  // sigfigs: always 0
  file.snaplen = r.U32();
  file.link_type = r.U32() & 0xffff;  // upper bits: FCS length flags
  return file;
}

absl::StatusOr<PcapRecord> ParseRecord(Reader& r, PcapTimeResolution res,
                                       size_t index) {
  if (r.remaining() < kPcapRecordHeaderBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "record %d at offset %d: header truncated (%d of %d bytes)", index,
        r.offset(), r.remaining(), kPcapRecordHeaderBytes));
  }
  const size_t at = r.offset();
  const uint32_t ts_sec = r.U32();
  const uint32_t ts_frac = r.U32();
  const uint32_t incl_len = r.U32();
  const uint32_t orig_len = r.U32();
  const uint32_t frac_limit =
      res == PcapTimeResolution::kNanoseconds ? 1'000'000'000 : 1'000'000;
  if (ts_frac >= frac_limit) {
    return absl::InvalidArgumentError(
        absl::StrFormat("record %d at offset %d: timestamp fraction %d out of "
                        "range (< %d)",
                        index, at, ts_frac, frac_limit));
  }
  if (incl_len > kPcapMaxRecordBytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("record %d at offset %d: captured length %d exceeds "
                        "%d",
                        index, at, incl_len, kPcapMaxRecordBytes));
  }
  if (orig_len < incl_len) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "record %d at offset %d: captured length %d > original length %d",
        index, at, incl_len, orig_len));
  }
  if (incl_len > r.remaining()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "record %d at offset %d: %d data bytes announced, %d left in file",
        index, at, incl_len, r.remaining()));
  }
  PcapRecord rec;
  const int64_t frac_ns =
      res == PcapTimeResolution::kNanoseconds ? ts_frac : ts_frac * 1000LL;
  rec.timestamp_ns = static_cast<int64_t>(ts_sec) * kNanosPerSecond + frac_ns;
  rec.original_length = orig_len;
  rec.data = r.Bytes(incl_len);
  return rec;
}

void PutU32(std::vector<uint8_t>& out, uint32_t v) {
  const size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}
void PutU16(std::vector<uint8_t>& out, uint16_t v) {
  const size_t at = out.size();
  out.resize(at + 2);
  std::memcpy(out.data() + at, &v, 2);
}

}  // namespace

absl::StatusOr<PcapFile> ParsePcap(absl::Span<const uint8_t> bytes) {
  if (bytes.size() < kPcapFileHeaderBytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pcap file header truncated: %d of %d bytes",
                        bytes.size(), kPcapFileHeaderBytes));
  }
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), 4);
  bool swapped;
  PcapTimeResolution res;
  if (magic == kMagicMicros || magic == kMagicNanos) {
    swapped = false;
    res = magic == kMagicNanos ? PcapTimeResolution::kNanoseconds
                               : PcapTimeResolution::kMicroseconds;
  } else if (magic == __builtin_bswap32(kMagicMicros) ||
             magic == __builtin_bswap32(kMagicNanos)) {
    swapped = true;
    res = magic == __builtin_bswap32(kMagicNanos)
              ? PcapTimeResolution::kNanoseconds
              : PcapTimeResolution::kMicroseconds;
  } else {
    return absl::InvalidArgumentError(absl::StrFormat(
        "not a classic pcap file: magic 0x%08x (pcapng starts 0x0a0d0d0a; "
        "convert with `editcap -F pcap IN OUT`)",
        magic));
  }
  Reader r(bytes, swapped);
  ZG_ASSIGN_OR_RETURN(PcapFile file, ParseFileHeader(r));
  file.resolution = res;
  file.byte_swapped = swapped;
  while (r.remaining() > 0) {
    ZG_ASSIGN_OR_RETURN(PcapRecord rec,
                        ParseRecord(r, res, file.records.size()));
    file.records.push_back(std::move(rec));
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
  const bool nanos = file.resolution == PcapTimeResolution::kNanoseconds;
  std::vector<uint8_t> out;
  PutU32(out, nanos ? kMagicNanos : kMagicMicros);
  PutU16(out, kVersionMajor);
  PutU16(out, kVersionMinor);
  PutU32(out, 0);  // thiszone
  PutU32(out, 0);  // sigfigs
  PutU32(out, file.snaplen);
  PutU32(out, file.link_type);
  for (size_t i = 0; i < file.records.size(); ++i) {
    const PcapRecord& rec = file.records[i];
    const int64_t sec = rec.timestamp_ns / kNanosPerSecond;
    const int64_t frac_ns = rec.timestamp_ns % kNanosPerSecond;
    if (rec.timestamp_ns < 0 || sec > UINT32_MAX) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "record %d: timestamp %d ns outside what pcap holds (1970..2106)", i,
          rec.timestamp_ns));
    }
    if (rec.data.size() > kPcapMaxRecordBytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("record %d: %d bytes exceeds %d", i, rec.data.size(),
                          kPcapMaxRecordBytes));
    }
    const uint32_t incl = static_cast<uint32_t>(rec.data.size());
    const uint32_t orig = rec.original_length == 0 ? incl : rec.original_length;
    if (orig < incl) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "record %d: original length %d < %d captured bytes", i, orig, incl));
    }
    PutU32(out, static_cast<uint32_t>(sec));
    PutU32(out, static_cast<uint32_t>(nanos ? frac_ns : frac_ns / 1000));
    PutU32(out, incl);
    PutU32(out, orig);
    out.insert(out.end(), rec.data.begin(), rec.data.end());
  }
  return out;
}

absl::Status WritePcapFile(const std::string& path, const PcapFile& file) {
  ZG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, SerializePcap(file));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("error writing ", path));
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
