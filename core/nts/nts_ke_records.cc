// SPDX-License-Identifier: Apache-2.0
#include "core/nts/nts_ke_records.h"

#include <algorithm>

#include "core/nts/nts_cookie.h"

namespace zg::core {
namespace {

constexpr uint16_t kCriticalBit = 0x8000;

uint16_t Be16(const uint8_t* p) {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

void PutBe16(uint16_t v, std::vector<uint8_t>* out) {
  out->push_back(static_cast<uint8_t>(v >> 8));
  out->push_back(static_cast<uint8_t>(v));
}

void AppendIdList(bool critical, NtsKeRecordType type,
                  std::span<const uint16_t> ids, std::vector<uint8_t>* out) {
  std::vector<uint8_t> body;
  for (uint16_t id : ids) PutBe16(id, &body);
  AppendNtsKeRecord(critical, static_cast<uint16_t>(type), body, out);
}

void AppendEnd(std::vector<uint8_t>* out) {
  AppendNtsKeRecord(true, static_cast<uint16_t>(NtsKeRecordType::kEndOfMessage),
                    {}, out);
}

// Whether `body` is a non-empty list of 16-bit ids; `found` set if `want`
// is among them.
bool ScanIds(std::span<const uint8_t> body, uint16_t want, bool* found) {
  if (body.empty() || body.size() % 2 != 0) return false;
  for (size_t i = 0; i < body.size(); i += 2) {
    if (Be16(&body[i]) == want) *found = true;
  }
  return true;
}

// Request-walk state: counts and what was found.
struct RequestScan {
  int next_protocol_records = 0;
  int aead_records = 0;
  NtsKeRequest request;
};

// Applies one request record; false with `error` set when it is refused.
bool ApplyRequestRecord(const NtsKeRecord& r, RequestScan* s,
                        NtsKeErrorCode* error) {
  *error = NtsKeErrorCode::kBadRequest;
  switch (static_cast<NtsKeRecordType>(r.type)) {
    case NtsKeRecordType::kNextProtocol:
      ++s->next_protocol_records;
      return r.critical && s->next_protocol_records == 1 &&
             ScanIds(r.body, kNtsKeProtocolNtpV4, &s->request.ntpv4);
    case NtsKeRecordType::kAeadAlgorithm:
      ++s->aead_records;
      return s->aead_records == 1 &&
             ScanIds(r.body, kNtsAeadAesSivCmac256, &s->request.aes_siv);
    case NtsKeRecordType::kError:
    case NtsKeRecordType::kWarning:
    case NtsKeRecordType::kNewCookie:
      return false;
    case NtsKeRecordType::kNtpServer:
      return r.body.size() <= kNtsKeMaxServerName;
    case NtsKeRecordType::kNtpPort:
      return r.body.size() == 2;
    case NtsKeRecordType::kEndOfMessage:
      return true;  // checked by the caller
  }
  if (r.critical) {
    *error = NtsKeErrorCode::kUnrecognizedCritical;
    return false;
  }
  return true;
}

NtsKeRequestParse Error(NtsKeErrorCode code) {
  NtsKeRequestParse p;
  p.state = NtsKeParseState::kError;
  p.error = code;
  return p;
}

}  // namespace

const char* NtsKeErrorCodeName(NtsKeErrorCode code) {
  switch (code) {
    case NtsKeErrorCode::kUnrecognizedCritical:
      return "unrecognized_critical";
    case NtsKeErrorCode::kBadRequest:
      return "bad_request";
    case NtsKeErrorCode::kInternalServerError:
      return "internal_server_error";
  }
  return "unknown";
}

std::optional<size_t> NextNtsKeRecord(std::span<const uint8_t> data,
                                      NtsKeRecord* out) {
  if (data.size() < kNtsKeRecordHeaderSize) return std::nullopt;
  const uint16_t head = Be16(&data[0]);
  const size_t len = Be16(&data[2]);
  if (data.size() < kNtsKeRecordHeaderSize + len) return std::nullopt;
  out->critical = (head & kCriticalBit) != 0;
  out->type = static_cast<uint16_t>(head & ~kCriticalBit);
  out->body = data.subspan(kNtsKeRecordHeaderSize, len);
  return kNtsKeRecordHeaderSize + len;
}

NtsKeRequestParse ParseNtsKeRequest(std::span<const uint8_t> data) {
  RequestScan scan;
  size_t off = 0;
  for (size_t records = 0;; ++records) {
    if (records >= kNtsKeMaxRecords || off >= kNtsKeMaxRequestSize) {
      return Error(NtsKeErrorCode::kBadRequest);
    }
    NtsKeRecord r;
    const std::optional<size_t> n = NextNtsKeRecord(data.subspan(off), &r);
    if (!n) {
      if (data.size() >= kNtsKeMaxRequestSize) {
        return Error(NtsKeErrorCode::kBadRequest);
      }
      return NtsKeRequestParse{};  // kIncomplete
    }
    off += *n;
    NtsKeErrorCode code;
    if (!ApplyRequestRecord(r, &scan, &code)) return Error(code);
    if (r.type != static_cast<uint16_t>(NtsKeRecordType::kEndOfMessage)) {
      continue;
    }
    if (!r.critical || !r.body.empty() || off != data.size() ||
        off > kNtsKeMaxRequestSize) {
      return Error(NtsKeErrorCode::kBadRequest);
    }
    break;
  }
  if (scan.next_protocol_records != 1 ||
      (scan.request.ntpv4 && scan.aead_records != 1)) {
    return Error(NtsKeErrorCode::kBadRequest);
  }
  NtsKeRequestParse p;
  p.state = NtsKeParseState::kComplete;
  p.request = scan.request;
  return p;
}

void AppendNtsKeRecord(bool critical, uint16_t type,
                       std::span<const uint8_t> body,
                       std::vector<uint8_t>* out) {
  PutBe16(static_cast<uint16_t>((critical ? kCriticalBit : 0) |
                                (type & ~kCriticalBit)),
          out);
  PutBe16(static_cast<uint16_t>(body.size()), out);
  out->insert(out->end(), body.begin(), body.end());
}

std::vector<uint8_t> BuildNtsKeResponse(const NtsKeRequest& request,
                                        const NtsKeServerRecords& server,
                                        std::span<const NtsKeCookie> cookies) {
  std::vector<uint8_t> out;
  out.reserve(64 + server.ntp_server.size() +
              cookies.size() * (kNtsKeRecordHeaderSize + sizeof(NtsKeCookie)));
  const uint16_t ntp = kNtsKeProtocolNtpV4;
  const uint16_t aead = kNtsAeadAesSivCmac256;
  AppendIdList(true, NtsKeRecordType::kNextProtocol,
               request.ntpv4 ? std::span<const uint16_t>(&ntp, 1)
                             : std::span<const uint16_t>(),
               &out);
  if (!request.ntpv4) {
    AppendEnd(&out);
    return out;
  }
  AppendIdList(true, NtsKeRecordType::kAeadAlgorithm,
               request.aes_siv ? std::span<const uint16_t>(&aead, 1)
                               : std::span<const uint16_t>(),
               &out);
  if (!request.aes_siv) {
    AppendEnd(&out);
    return out;
  }
  if (!server.ntp_server.empty()) {
    const size_t n = std::min(server.ntp_server.size(), kNtsKeMaxServerName);
    AppendNtsKeRecord(
        true, static_cast<uint16_t>(NtsKeRecordType::kNtpServer),
        std::span<const uint8_t>(
            reinterpret_cast<const uint8_t*>(server.ntp_server.data()), n),
        &out);
  }
  if (server.ntp_port != 0) {
    const uint8_t port[2] = {static_cast<uint8_t>(server.ntp_port >> 8),
                             static_cast<uint8_t>(server.ntp_port)};
    AppendNtsKeRecord(true, static_cast<uint16_t>(NtsKeRecordType::kNtpPort),
                      port, &out);
  }
  for (const NtsKeCookie& c : cookies) {
    AppendNtsKeRecord(false, static_cast<uint16_t>(NtsKeRecordType::kNewCookie),
                      c, &out);
  }
  AppendEnd(&out);
  return out;
}

std::vector<uint8_t> BuildNtsKeErrorResponse(NtsKeErrorCode code) {
  std::vector<uint8_t> out;
  const uint16_t c = static_cast<uint16_t>(code);
  const uint8_t body[2] = {static_cast<uint8_t>(c >> 8),
                           static_cast<uint8_t>(c)};
  AppendNtsKeRecord(true, static_cast<uint16_t>(NtsKeRecordType::kError), body,
                    &out);
  AppendEnd(&out);
  return out;
}

std::vector<uint8_t> BuildNtsKeRequest(std::span<const uint16_t> protocols,
                                       std::span<const uint16_t> aeads) {
  std::vector<uint8_t> out;
  if (!protocols.empty()) {
    AppendIdList(true, NtsKeRecordType::kNextProtocol, protocols, &out);
  }
  if (!aeads.empty()) {
    AppendIdList(true, NtsKeRecordType::kAeadAlgorithm, aeads, &out);
  }
  AppendEnd(&out);
  return out;
}

namespace {

bool ReadIds(std::span<const uint8_t> body, std::vector<uint16_t>* ids) {
  if (body.size() % 2 != 0) return false;
  for (size_t i = 0; i < body.size(); i += 2) ids->push_back(Be16(&body[i]));
  return true;
}

// Applies one response record; false if malformed.
bool ApplyResponseRecord(const NtsKeRecord& r, NtsKeResponse* out) {
  switch (static_cast<NtsKeRecordType>(r.type)) {
    case NtsKeRecordType::kNextProtocol:
      return ReadIds(r.body, &out->protocols);
    case NtsKeRecordType::kAeadAlgorithm:
      return ReadIds(r.body, &out->aeads);
    case NtsKeRecordType::kError:
    case NtsKeRecordType::kWarning:
    case NtsKeRecordType::kNtpPort: {
      if (r.body.size() != 2) return false;
      const uint16_t v = Be16(r.body.data());
      if (r.type == static_cast<uint16_t>(NtsKeRecordType::kError)) {
        out->error = v;
      } else if (r.type == static_cast<uint16_t>(NtsKeRecordType::kWarning)) {
        out->warning = v;
      } else {
        out->ntp_port = v;
      }
      return true;
    }
    case NtsKeRecordType::kNewCookie:
      out->cookies.emplace_back(r.body.begin(), r.body.end());
      return true;
    case NtsKeRecordType::kNtpServer:
      out->ntp_server.assign(r.body.begin(), r.body.end());
      return true;
    case NtsKeRecordType::kEndOfMessage:
      return r.critical && r.body.empty();
  }
  return !r.critical;
}

}  // namespace

NtsKeResponseParse ParseNtsKeResponse(std::span<const uint8_t> data,
                                      NtsKeResponse* out) {
  *out = NtsKeResponse{};
  size_t off = 0;
  while (true) {
    NtsKeRecord r;
    const std::optional<size_t> n = NextNtsKeRecord(data.subspan(off), &r);
    if (!n) return NtsKeResponseParse::kIncomplete;
    off += *n;
    if (!ApplyResponseRecord(r, out)) return NtsKeResponseParse::kMalformed;
    if (r.type == static_cast<uint16_t>(NtsKeRecordType::kEndOfMessage)) {
      return off == data.size() ? NtsKeResponseParse::kComplete
                                : NtsKeResponseParse::kMalformed;
    }
  }
}

}  // namespace zg::core
