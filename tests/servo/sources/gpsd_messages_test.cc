// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/gpsd_messages.h"

#include "gtest/gtest.h"

namespace zg::servo {
namespace gpsd_messages_test {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;

// Lines as gpsd 3.22 (Debian 12) sent them while gpsfake replayed
// tests/data/gpsd_gps_beidou.nmea.
constexpr char kSky[] =
    R"({"class":"SKY","device":"/dev/pts/5","xdop":0.68,"ydop":0.84,)"
    R"("vdop":1.50,"tdop":1.37,"hdop":1.00,"gdop":2.60,"pdop":1.80,"nSat":13,)"
    R"("uSat":9,"satellites":[)"
    R"({"PRN":2,"el":45.0,"az":120.0,"ss":42.0,"used":true,"gnssid":0,"svid":2},)"
    R"({"PRN":5,"el":60.0,"az":200.0,"ss":45.0,"used":true,"gnssid":0,"svid":5},)"
    R"({"PRN":12,"el":30.0,"az":300.0,"ss":40.0,"used":true,"gnssid":0,"svid":12},)"
    R"({"PRN":15,"el":20.0,"az":45.0,"ss":38.0,"used":true,"gnssid":0,"svid":15},)"
    R"({"PRN":18,"el":75.0,"az":90.0,"ss":47.0,"used":true,"gnssid":0,"svid":18},)"
    R"({"PRN":25,"el":10.0,"az":250.0,"ss":30.0,"used":false,"gnssid":0,"svid":25},)"
    R"({"PRN":29,"el":5.0,"az":170.0,"ss":25.0,"used":false,"gnssid":0,"svid":29},)"
    R"({"PRN":406,"el":50.0,"az":140.0,"ss":41.0,"used":true,"gnssid":3,"svid":6},)"
    R"({"PRN":409,"el":40.0,"az":210.0,"ss":39.0,"used":true,"gnssid":3,"svid":9},)"
    R"({"PRN":414,"el":65.0,"az":320.0,"ss":44.0,"used":true,"gnssid":3,"svid":14},)"
    R"({"PRN":421,"el":25.0,"az":60.0,"ss":37.0,"used":true,"gnssid":3,"svid":21},)"
    R"({"PRN":423,"el":15.0,"az":100.0,"ss":33.0,"used":false,"gnssid":3,"svid":23},)"
    R"({"PRN":428,"el":8.0,"az":280.0,"ss":28.0,"used":false,"gnssid":3,"svid":28}]})";

TEST(GpsdMessagesTest, ParsesTpv) {
  const absl::StatusOr<GpsdMessage> m = ParseGpsdMessage(
      R"({"class":"TPV","device":"/dev/pts/3","mode":3,)"
      R"("time":"2024-03-10T12:00:02.000Z","ept":0.005,"lat":39.9705,)"
      R"("lon":116.391333333,"altHAE":44.0000,"status":2,"leapseconds":18})");
  ASSERT_TRUE(m.ok()) << m.status();
  const GpsdTpv* tpv = std::get_if<GpsdTpv>(&*m);
  ASSERT_NE(tpv, nullptr);
  EXPECT_EQ(tpv->device, "/dev/pts/3");
  EXPECT_EQ(tpv->mode, 3);
  ASSERT_TRUE(tpv->time.has_value());
  EXPECT_EQ(tpv->time->value, 1'710'072'002 * kS);
  EXPECT_DOUBLE_EQ(*tpv->ept_s, 0.005);
  EXPECT_EQ(tpv->status, 2);
  EXPECT_EQ(tpv->leapseconds, 18);
  EXPECT_DOUBLE_EQ(*tpv->lat_deg, 39.9705);
  EXPECT_DOUBLE_EQ(*tpv->lon_deg, 116.391333333);
  EXPECT_DOUBLE_EQ(*tpv->alt_m, 44.0);
  // A TPV without a fix has no time.
  const absl::StatusOr<GpsdMessage> nofix =
      ParseGpsdMessage(R"({"class":"TPV","device":"/dev/ttyACM0","mode":1})");
  ASSERT_TRUE(nofix.ok());
  EXPECT_EQ(std::get<GpsdTpv>(*nofix).mode, 1);
  EXPECT_FALSE(std::get<GpsdTpv>(*nofix).time.has_value());
}

TEST(GpsdMessagesTest, CountsSatellitesPerConstellation) {
  const absl::StatusOr<GpsdMessage> m = ParseGpsdMessage(kSky);
  ASSERT_TRUE(m.ok()) << m.status();
  const GpsdSky& sky = std::get<GpsdSky>(*m);
  ASSERT_EQ(sky.satellites.size(), 13u);
  EXPECT_DOUBLE_EQ(*sky.satellites[7].azimuth_deg, 140.0);
  EXPECT_DOUBLE_EQ(*sky.satellites[7].elevation_deg, 50.0);
  const ConstellationCounts c = CountSatellites(sky.satellites);
  EXPECT_EQ(c[static_cast<size_t>(GnssSystem::kGps)],
            (SatelliteCounts{7, 5, 5}));
  EXPECT_EQ(c[static_cast<size_t>(GnssSystem::kBeidou)],
            (SatelliteCounts{6, 4, 4}));
  EXPECT_EQ(c[static_cast<size_t>(GnssSystem::kGalileo)],
            (SatelliteCounts{0, 0}));
  EXPECT_EQ(c[static_cast<size_t>(GnssSystem::kGlonass)],
            (SatelliteCounts{0, 0}));
}

TEST(GpsdMessagesTest, FallsBackToPrnRangesWithoutGnssid) {
  auto sys = [](int prn) { return SystemOf(GpsdSatellite{.prn = prn}); };
  EXPECT_EQ(sys(7), GnssSystem::kGps);
  EXPECT_EQ(sys(40), GnssSystem::kSbas);
  EXPECT_EQ(sys(133), GnssSystem::kSbas);
  EXPECT_EQ(sys(70), GnssSystem::kGlonass);
  EXPECT_EQ(sys(195), GnssSystem::kQzss);
  EXPECT_EQ(sys(305), GnssSystem::kGalileo);
  EXPECT_EQ(sys(420), GnssSystem::kBeidou);
  EXPECT_EQ(sys(999), GnssSystem::kUnknown);
  EXPECT_EQ(SystemOf(GpsdSatellite{.prn = 7, .gnssid = 2}),
            GnssSystem::kGalileo);  // gnssid wins
  EXPECT_EQ(SystemOf(GpsdSatellite{.prn = 7, .gnssid = 42}),
            GnssSystem::kUnknown);
  EXPECT_STREQ(GnssSystemName(GnssSystem::kBeidou), "beidou");
}

TEST(GpsdMessagesTest, ParsesPpsAndToff) {
  const absl::StatusOr<GpsdMessage> toff = ParseGpsdMessage(
      R"({"class":"TOFF","device":"/dev/pts/3","real_sec":1710072001, )"
      R"("real_nsec":0,"clock_sec":1795973657,"clock_nsec":438810473})");
  ASSERT_TRUE(toff.ok()) << toff.status();
  const GpsdTimeOffset& t = std::get<GpsdTimeOffset>(*toff);
  EXPECT_EQ(t.kind, GpsdTimeOffset::Kind::kToff);
  EXPECT_EQ(t.real.value, 1'710'072'001 * kS);
  EXPECT_EQ(t.clock_realtime_ns, 1'795'973'657 * kS + 438'810'473);
  const absl::StatusOr<GpsdMessage> pps = ParseGpsdMessage(
      R"({"class":"PPS","device":"/dev/ttyS0","real_sec":1710072002,)"
      R"("real_nsec":0,"clock_sec":1710072002,"clock_nsec":1234,)"
      R"("precision":-20,"shm":"NTP0","qErr":0})");
  ASSERT_TRUE(pps.ok()) << pps.status();
  EXPECT_EQ(std::get<GpsdTimeOffset>(*pps).kind, GpsdTimeOffset::Kind::kPps);
  EXPECT_EQ(std::get<GpsdTimeOffset>(*pps).precision, -20);
}

TEST(GpsdMessagesTest, ParsesVersionDevicesAndErrors) {
  const auto v = ParseGpsdMessage(
      R"({"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,)"
      R"("proto_minor":14})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(std::get<GpsdVersion>(*v).release, "3.22");
  EXPECT_EQ(std::get<GpsdVersion>(*v).proto_minor, 14);
  const auto ds = ParseGpsdMessage(
      R"({"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/3",)"
      R"("activated":"2026-11-29T17:34:16.751Z","native":0,"bps":4800}]})");
  ASSERT_TRUE(ds.ok()) << ds.status();
  ASSERT_EQ(std::get<GpsdDevices>(*ds).devices.size(), 1u);
  EXPECT_TRUE(std::get<GpsdDevices>(*ds).devices[0].active);
  const auto closed = ParseGpsdMessage(
      R"({"class":"DEVICE","path":"/dev/pts/3","activated":0})");
  ASSERT_TRUE(closed.ok());
  EXPECT_FALSE(std::get<GpsdDeviceInfo>(*closed).active);
  const auto err =
      ParseGpsdMessage(R"({"class":"ERROR","message":"Unrecognized request"})");
  ASSERT_TRUE(err.ok());
  EXPECT_EQ(std::get<GpsdError>(*err).message, "Unrecognized request");
  const auto watch = ParseGpsdMessage(R"({"class":"WATCH","enable":true})");
  ASSERT_TRUE(watch.ok());
  EXPECT_EQ(std::get<GpsdOther>(*watch).class_name, "WATCH");
}

TEST(GpsdMessagesTest, RejectsBadFieldsAndShapes) {
  for (const char* bad : {
           R"([1,2])",
           R"({"mode":3})",
           R"({"class":"TPV","mode":7})",
           R"({"class":"TPV","mode":"3"})",
           R"({"class":"TPV","mode":3,"time":"yesterday"})",
           R"({"class":"TPV","mode":3,"ept":-1})",
           R"({"class":"SKY","satellites":{}})",
           R"({"class":"SKY","satellites":[{"PRN":2,"used":1}]})",
           R"({"class":"SKY","satellites":[3]})",
           R"({"class":"TOFF","real_sec":1,"real_nsec":1000000000,)"
           R"("clock_sec":1,"clock_nsec":0})",
           R"({"class":"PPS","real_sec":1,"real_nsec":0,"clock_sec":1})",
           R"({"class":"TOFF","real_sec":-5,"real_nsec":0,"clock_sec":1,)"
           R"("clock_nsec":0})",
           // Found by the fuzzer: seconds whose nanoseconds overflow int64.
           R"({"class":"TOFF","real_sec":1,"real_nsec":0,)"
           R"("clock_sec":9791357657,"clock_nsec":0})",
           R"({"class":"DEVICES","devices":3})",
           R"({"class":"TPV","mode":3)",
       }) {
    EXPECT_FALSE(ParseGpsdMessage(bad).ok()) << "accepted: " << bad;
  }
  std::string many = R"({"class":"SKY","satellites":[)";
  for (int i = 0; i < 300; ++i) many += R"({"PRN":1},)";
  many += R"({"PRN":1}]})";
  EXPECT_FALSE(ParseGpsdMessage(many).ok());
}

TEST(Iso8601Test, ParsesUtcTimes) {
  EXPECT_EQ(ParseIso8601Utc("1970-01-01T00:00:00Z")->value, 0);
  EXPECT_EQ(ParseIso8601Utc("2024-03-10T12:00:01.5Z")->value,
            1'710'072'001 * kS + 500'000'000);
  EXPECT_EQ(ParseIso8601Utc("2024-02-29T00:00:00.123456789Z")->value,
            1'709'164'800 * kS + 123'456'789);
  EXPECT_EQ(ParseIso8601Utc("2038-01-19T03:14:08Z")->value, 2'147'483'648 * kS);
  EXPECT_EQ(ParseIso8601Utc("2036-02-07T06:28:16Z")->value, 2'085'978'496 * kS);
  EXPECT_EQ(ParseIso8601Utc("2261-12-31T23:59:59.999999999Z")->value,
            9'214'646'399 * kS + 999'999'999);
  // A leap second 23:59:60 counts as the next midnight (POSIX has no :60).
  EXPECT_EQ(ParseIso8601Utc("2016-12-31T23:59:60Z")->value, 1'483'228'800 * kS);
  for (const char* bad :
       {"", "2024-03-10", "2024-03-10T12:00:01", "2024-13-01T00:00:00Z",
        "2023-02-29T00:00:00Z", "2024-03-10T24:00:00Z", "2024-03-10T12:60:00Z",
        "2024-03-10T12:00:61Z", "2024-03-10T12:00:01.Z",
        "2024-03-10T12:00:01.1234567890Z", "2024-03-10T12:00:01Zjunk",
        "1899-12-31T23:59:59Z", "2262-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        "2024-03-10 12:00:01Z"}) {
    EXPECT_FALSE(ParseIso8601Utc(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace gpsd_messages_test
}  // namespace zg::servo
