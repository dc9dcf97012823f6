// Fuzzes the classic pcap reader (tests/util/pcap.h): any byte string must
// parse or fail cleanly, and whatever parses must re-serialize and re-parse to
// the same records (the writer and reader agree).
#include <cstddef>
#include <cstdint>

#include "tests/util/pcap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::testutil;
  absl::StatusOr<PcapFile> file = ParsePcap(absl::MakeConstSpan(data, size));
  if (!file.ok()) return 0;
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializePcap(*file);
  if (!bytes.ok()) __builtin_trap();  // anything readable must be writable
  absl::StatusOr<PcapFile> again = ParsePcap(*bytes);
  if (!again.ok() || again->records.size() != file->records.size()) {
    __builtin_trap();
  }
  for (size_t i = 0; i < file->records.size(); ++i) {
    const PcapRecord& a = file->records[i];
    const PcapRecord& b = again->records[i];
    if (a.timestamp_ns != b.timestamp_ns || a.data != b.data) __builtin_trap();
    // A zero original length is only possible with no data; the writer
    // then writes data.size() == 0 back.
    if (a.original_length != b.original_length) __builtin_trap();
  }
  return 0;
}
