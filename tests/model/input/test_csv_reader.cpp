// Measured points as CSV the way spreadsheets and scripts write it (RFC 4180): quoted
// fields with commas, quotes and line breaks, CRLF, a UTF-8 byte order mark, comments;
// what is still wrong is named with its file and line.
#include <catch2/catch.hpp>

#include "model/input/csv_reader.hpp"
#include "model/input/error.hpp"
#include "model/input/measurements.hpp"

using namespace possim;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("csv: quoted fields keep their commas, doubled quotes and line breaks, and rows know their first line",
          "[csv]") {
  const CsvText t = read_csv("# a comment, with \"quotes\"\r\n"
                             "a,b,c\r\n"
                             "\r\n"
                             "1,\"x, y\",\"say \"\"hi\"\"\"\r\n"
                             "2,\"two\nlines\",\r\n"
                             "3,z,last",
                             "m.csv");
  REQUIRE(t.rows.size() == 4);
  CHECK_FALSE(t.had_bom);
  CHECK(t.rows[0].line == 2);
  CHECK(t.rows[0].cells == std::vector<std::string>{"a", "b", "c"});
  CHECK(t.rows[1].line == 4);
  CHECK(t.rows[1].cells == std::vector<std::string>{"1", "x, y", "say \"hi\""});
  CHECK(t.rows[2].line == 5);
  CHECK(t.rows[2].cells == std::vector<std::string>{"2", "two\nlines", ""});
  CHECK(t.rows[3].line == 7);  // after the quoted line break, no newline at the end
  CHECK(t.rows[3].cells == std::vector<std::string>{"3", "z", "last"});
}

TEST_CASE("csv: a byte order mark is dropped, and a stray quote or an unclosed one is named by line", "[csv]") {
  const CsvText t = read_csv("\xEF\xBB\xBFmodel,nodes\n", "m.csv");
  CHECK(t.had_bom);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].cells[0] == "model");
  const std::string stray = message_of([] { read_csv("a,b\n1,x\"y\n", "m.csv"); });
  CHECK_THAT(stray, Catch::Contains("m.csv:2") && Catch::Contains("quote"));
  const std::string open = message_of([] { read_csv("a,b\n1,\"never closed\n2,3\n", "m.csv"); });
  CHECK_THAT(open, Catch::Contains("m.csv:3") && Catch::Contains("never closed"));
}

TEST_CASE("csv: a field written by csv_field reads back as it was", "[csv]") {
  for (const std::string s : {"plain", "a,b", "say \"hi\"", "two\nlines", " padded ", ""}) {
    INFO(s);
    const CsvText t = read_csv(csv_field(s) + "," + csv_field("next") + "\n", "m.csv");
    REQUIRE(t.rows.size() == 1);
    CHECK(t.rows[0].cells == std::vector<std::string>{s, "next"});
  }
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
}

TEST_CASE("measured points: a spreadsheet's CSV (BOM, CRLF, a quoted source with commas) reads as written",
          "[csv][measurements]") {
  const std::string text =
      "\xEF\xBB\xBFmodel,strategy,nodes,nic_gbps,iteration_s,source\r\n"
      "vgg19,poseidon,8,40,1.25,\"ATC'17, Figure 5, read off the plot\"\r\n";
  const MeasurementSet set = parse_measurements(text, "m.csv", ".", 32);
  REQUIRE(set.points.size() == 1);
  CHECK(set.points[0].source == "ATC'17, Figure 5, read off the plot");
  CHECK(set.points[0].iteration_s == 1.25);
  CHECK(set.points[0].where == "m.csv:2");
  // What possim writes, it reads: a model path with a comma survives.
  MeasurementPoint p = set.points[0];
  p.model = "nets/my, net.json";
  const CsvText back = read_csv(measurements_csv({p}), "out.csv");
  REQUIRE(back.rows.size() == 2);
  CHECK(back.rows[1].cells[0] == "nets/my, net.json");
}

TEST_CASE("measured points: a byte order mark that is still there, or UTF-16, is named", "[csv][measurements]") {
  // A BOM after another (an editor that added its own): the header's first column holds one.
  const std::string twice = message_of([] {
    parse_measurements("\xEF\xBB\xBF\xEF\xBB\xBFmodel,strategy,nodes,nic_gbps,iteration_s\n", "m.csv", ".", 32);
  });
  CHECK_THAT(twice, Catch::Contains("m.csv:1") && Catch::Contains("byte order mark"));
  const std::string utf16 = message_of([] { parse_measurements(std::string("\xFF\xFEm\0o", 5), "m.csv", ".", 32); });
  CHECK_THAT(utf16, Catch::Contains("UTF-16") && Catch::Contains("FF FE"));
}

TEST_CASE("measured points: the README's template (traces/example_measured.csv) reads, every way of measuring",
          "[csv][measurements]") {
  const MeasurementSet set = load_measurements(std::string(POSSIM_SOURCE_DIR) + "/traces/example_measured.csv", 32);
  REQUIRE(set.points.size() == 2);
  CHECK(set.points[0].measured_as == "images_per_s");
  CHECK(set.points[1].measured_as == "speedup");
  CHECK_THAT(set.points[1].source, Catch::Contains("32 nodes: 29.5x"));  // a quoted comma kept
}

TEST_CASE("measured points: the profile that predicts them is the one given, else the one their rows name",
          "[csv][measurements]") {
  const std::string head = "model,strategy,nodes,nic_gbps,iteration_s,profile\n";
  const MeasurementSet none = parse_measurements(head + "vgg19,wfbp,8,40,1.0,\n", "m.csv", ".", 32);
  CHECK_THAT(message_of([&] { measured_profile(none, "", "--profile"); }),
             Catch::Contains("--profile") && Catch::Contains("no point names the profile"));
  CHECK(measured_profile(none, "v100", "--profile") == "v100");
  const MeasurementSet named = parse_measurements(head + "vgg19,wfbp,8,40,1.0,v100\nvgg19,ps,8,40,2.0,v100\n", "m.csv",
                                                  ".", 32);
  CHECK(measured_profile(named, "", "--profile") == "v100");
  std::string note;
  CHECK(measured_profile(named, "profiles/v100_refit.json", "--profile", &note) == "profiles/v100_refit.json");
  CHECK_THAT(note, Catch::Contains("m.csv:2") && Catch::Contains("'v100'"));
  const MeasurementSet mixed =
      parse_measurements(head + "vgg19,wfbp,8,40,1.0,v100\nvgg19,ps,8,40,2.0,titanx_maxwell\n", "m.csv", ".", 32);
  CHECK_THAT(message_of([&] { measured_profile(mixed, "", "--profile"); }),
             Catch::Contains("m.csv:3") && Catch::Contains("titanx_maxwell") && Catch::Contains("m.csv:2"));
  // A row naming none among rows naming one: its profile may not be theirs, so it is refused
  // (with --profile, every row takes the one given).
  const MeasurementSet partial =
      parse_measurements(head + "vgg19,wfbp,8,40,1.0,titanx_maxwell\nvgg19,ps,8,40,2.0,\n", "m.csv", ".", 32);
  CHECK_THAT(message_of([&] { measured_profile(partial, "", "--profile"); }),
             Catch::Contains("m.csv:3: profile: names no profile") && Catch::Contains("m.csv:2 names 'titanx_maxwell'") &&
                 Catch::Contains("--profile NAME"));
  CHECK(measured_profile(partial, "v100", "--profile") == "v100");
}

TEST_CASE("measured points: a quoted line break in the source note reads as a space and nowhere else",
          "[csv][measurements]") {
  const std::string head = "model,strategy,nodes,nic_gbps,iteration_s,source\r\n";
  const MeasurementSet set =
      parse_measurements(head + "vgg19,poseidon,8,40,1.25,\"ATC'17, Figure 5:\r\n  read off\nthe plot\"\r\n", "m.csv",
                         ".", 32);
  REQUIRE(set.points.size() == 1);
  CHECK(set.points[0].source == "ATC'17, Figure 5: read off the plot");
  CHECK(set.points[0].iteration_s == 1.25);
  // A name holding one is still not a name.
  CHECK_THAT(message_of([&] { parse_measurements(head + "\"vgg\n19\",poseidon,8,40,1.25,x\r\n", "m.csv", ".", 32); }),
             Catch::Contains("m.csv:2: model") && Catch::Contains("is not printable text"));
}
