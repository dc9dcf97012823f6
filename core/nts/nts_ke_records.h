// SPDX-License-Identifier: Apache-2.0
// NTS Key Establishment records (RFC 8915 section 4): the request a client
// sends over TLS, its validation, and the server's response. Pure code: no
// I/O, no TLS (dataplane/nts/nts_ke_server.h runs the TLS side).
//
// A record is
//   C (1 bit: critical) | type (15 bits) | body length (16 bits) | body
// all big-endian; a message is a sequence of records ending with a
// critical End of Message record of empty body.
//
// The server's checks on a request (section 4.1, as chrony 4.3's
// nts_ke_server.c process_request does them):
//   - exactly one Next Protocol record, critical, a non-empty list of
//     16-bit ids; one AEAD Algorithm record when NTPv4 (0) is among them,
//     a non-empty list;
//   - Error, Warning or New Cookie from a client, a malformed End of
//     Message, a body of odd length where ids are listed, bytes after End
//     of Message, a message over kNtsKeMaxRequestSize or with over
//     kNtsKeMaxRecords records: Bad Request (error code 1);
//   - an unknown record type with the critical bit: Unrecognized Critical
//     Record (error code 0); without it, ignored;
//   - the client's NTPv4 Server / Port records are allowed and ignored
//     (we name our own NTP address, if configured).
// Without NTPv4 in the client's list the response is an empty Next
// Protocol record; without AES-SIV-CMAC-256 (15) in its AEAD list, Next
// Protocol 0 and an empty AEAD record, and no cookies (section 4.1.2 and
// 4.1.5: no common choice).
//
//   NtsKeRequestParse p = ParseNtsKeRequest(bytes_so_far);
//   if (p.state == NtsKeParseState::kIncomplete) read more;
//   if (p.state == NtsKeParseState::kError)
//     send BuildNtsKeErrorResponse(p.error);
//   else if (p.request.Accepted())
//     send BuildNtsKeResponse(p.request, server_records, cookies);
#ifndef ZG_CORE_NTS_NTS_KE_RECORDS_H_
#define ZG_CORE_NTS_NTS_KE_RECORDS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zg::core {

enum class NtsKeRecordType : uint16_t {
  kEndOfMessage = 0,
  kNextProtocol = 1,
  kError = 2,
  kWarning = 3,
  kAeadAlgorithm = 4,
  kNewCookie = 5,
  kNtpServer = 6,
  kNtpPort = 7,
};

enum class NtsKeErrorCode : uint16_t {
  kUnrecognizedCritical = 0,
  kBadRequest = 1,
  kInternalServerError = 2,
};
inline constexpr size_t kNtsKeErrorCodeCount = 3;
// "unrecognized_critical", "bad_request", "internal_server_error" (metric
// labels).
const char* NtsKeErrorCodeName(NtsKeErrorCode code);

inline constexpr uint16_t kNtsKeProtocolNtpV4 = 0;
inline constexpr size_t kNtsKeRecordHeaderSize = 4;
inline constexpr size_t kNtsKeMaxRequestSize = 4096;
inline constexpr size_t kNtsKeMaxRecords = 64;
inline constexpr size_t kNtsKeCookiesPerResponse = 8;  // section 4.1.6
inline constexpr uint16_t kNtsKeDefaultPort = 4460;
inline constexpr size_t kNtsKeMaxServerName = 255;

// One record, its body pointing into the message.
struct NtsKeRecord {
  bool critical = false;
  uint16_t type = 0;  // 15 bits
  std::span<const uint8_t> body;
};

// Splits the record at the front of `data`: its size (header + body), or
// nullopt if `data` does not hold all of it yet.
std::optional<size_t> NextNtsKeRecord(std::span<const uint8_t> data,
                                      NtsKeRecord* out);

// What a valid request asked for.
struct NtsKeRequest {
  bool ntpv4 = false;    // NTPv4 (0) among the next protocols
  bool aes_siv = false;  // AEAD 15 among the algorithms
  bool Accepted() const { return ntpv4 && aes_siv; }
};

enum class NtsKeParseState : uint8_t { kIncomplete, kComplete, kError };

struct NtsKeRequestParse {
  NtsKeParseState state = NtsKeParseState::kIncomplete;
  NtsKeErrorCode error = NtsKeErrorCode::kBadRequest;  // kError
  NtsKeRequest request;                                // kComplete
};

// Parses the bytes of a request received so far (from its first byte).
NtsKeRequestParse ParseNtsKeRequest(std::span<const uint8_t> data);

// The server's NTPv4 Server / Port records (section 4.1.7, 4.1.8).
struct NtsKeServerRecords {
  std::string ntp_server;  // "": none (the client uses the KE host)
  uint16_t ntp_port = 0;   // 0: none (the client uses 123)
};

using NtsKeCookie = std::array<uint8_t, 100>;

// The response to a valid request. With request.Accepted(): Next Protocol
// 0, AEAD 15, the server records, one New Cookie per cookie, End of
// Message; otherwise the "no common choice" response above.
std::vector<uint8_t> BuildNtsKeResponse(const NtsKeRequest& request,
                                        const NtsKeServerRecords& server,
                                        std::span<const NtsKeCookie> cookies);
// Error record + End of Message.
std::vector<uint8_t> BuildNtsKeErrorResponse(NtsKeErrorCode code);

// Appends one record to `out`.
void AppendNtsKeRecord(bool critical, uint16_t type,
                       std::span<const uint8_t> body,
                       std::vector<uint8_t>* out);

// The client side, for tests, benchmarks and the load generator: a
// request offering `protocols` and `aeads` (empty: that record left out).
std::vector<uint8_t> BuildNtsKeRequest(std::span<const uint16_t> protocols,
                                       std::span<const uint16_t> aeads);

// A server's response as a client reads it.
struct NtsKeResponse {
  std::vector<uint16_t> protocols;
  std::vector<uint16_t> aeads;
  std::vector<std::vector<uint8_t>> cookies;
  std::string ntp_server;
  std::optional<uint16_t> ntp_port;
  std::optional<uint16_t> error;
  std::optional<uint16_t> warning;
};
enum class NtsKeResponseParse : uint8_t { kIncomplete, kComplete, kMalformed };
NtsKeResponseParse ParseNtsKeResponse(std::span<const uint8_t> data,
                                      NtsKeResponse* out);

}  // namespace zg::core

#endif  // ZG_CORE_NTS_NTS_KE_RECORDS_H_
