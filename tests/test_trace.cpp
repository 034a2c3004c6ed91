// Chrome trace output: microsecond timestamps, one named track per timeline track, in
// reading order (workers by number, then shards).
#include <catch2/catch.hpp>

#include <map>

#include "model/result_io.hpp"

using namespace possim;

TEST_CASE("Chrome trace: units, tracks and their order", "[trace]") {
  const std::vector<TimelineEvent> events = {
      {"shard 0 CPU", "apply fc6", "apply", 0.5, 0.25, 1},
      {"worker 10 GPU", "backward fc6", "backward", 0.1, 0.2, 0},
      {"worker 2 net", "push fc6", "push", 0.3, 0.1, 0},
      {"worker 2 GPU", "forward conv1", "forward", 0.0, 0.1, 0},
  };
  const nlohmann::json j = chrome_trace(events, "test");
  std::map<int, std::string> names;
  std::vector<nlohmann::json> slices;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("name") == "thread_name") names[e.at("tid").get<int>()] = e.at("args").at("name");
    if (e.at("ph") == "X") slices.push_back(e);
  }
  REQUIRE(names.size() == 4);
  CHECK(names[1] == "worker 2 GPU");
  CHECK(names[2] == "worker 2 net");
  CHECK(names[3] == "worker 10 GPU");
  CHECK(names[4] == "shard 0 CPU");
  REQUIRE(slices.size() == 4);
  CHECK(slices[0].at("ts").get<double>() == Approx(500000.0));
  CHECK(slices[0].at("dur").get<double>() == Approx(250000.0));
  CHECK(names[slices[0].at("tid").get<int>()] == "shard 0 CPU");
  CHECK(slices[0].at("args").at("iteration") == 1);
  CHECK_FALSE(j.contains("displayTimeUnit"));  // older viewers read it as the timestamp unit
}
