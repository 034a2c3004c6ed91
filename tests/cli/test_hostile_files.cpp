// possim reading back its own files, edited by hand or by an attacker (issue 31): results
// files a report draws, points a sweep resumes from, measurements, device sheets, prices,
// and the text that crosses into a gnuplot script, a terminal or a JSON file. Each must end
// with exit status 2 and one line naming the file, the record and the field, run nothing
// it was not asked to, and write nothing.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/input/layer_json.hpp"
#include "model/input/text.hpp"
#include "report/figure.hpp"
#include "report/gnuplot.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using possim::test::Output;
using possim::test::run_possim;
using possim::test::scratch;
using possim::test::slurp;

namespace {

constexpr int kTimeout = 60;  // seconds: a hang fails the test instead of hanging it

using possim::test::count_lines;
using possim::test::write_file;

json small_scenario() {
  return json::parse(R"({"name": "h", "model": "alexnet", "batch_per_gpu": 16,
    "cluster": {"nodes": [1, 2], "nic_gbps": [10]}, "strategies": ["ps"], "iterations": 2})");
}

// Exit 2, one line on stderr containing `what`, nothing on stdout.
void refused(const Output& o, const std::string& what) {
  INFO("stderr: " << o.err.substr(0, 2000));
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
  CHECK(o.err.find(what) != std::string::npos);
  CHECK(o.err.find("json.exception") == std::string::npos);
  CHECK(o.out.empty());
}

// A results.json of an analytic run in `dir`/r, and its JSON.
json results_file(const fs::path& dir) {
  write_file(dir / "s.json", small_scenario().dump());
  const Output o = run_possim("run s.json -q --engine analytic --out r", dir, kTimeout);
  REQUIRE(o.status == 0);
  return json::parse(slurp(dir / "r" / "results.json"));
}

// A finished sweep of two points in `dir`/sw (analytic): its points.jsonl lines.
std::vector<json> sweep_points(const fs::path& dir) {
  write_file(dir / "base.json", small_scenario().dump());
  write_file(dir / "sweep.json", R"({"name": "sw", "base": "base.json", "axes": {"cluster.nodes": [2],
    "cluster.nic_gbps": [1, 10]}})");
  const Output o = run_possim("sweep sweep.json -q --engine analytic --out sw", dir, kTimeout);
  REQUIRE(o.status == 0);
  std::vector<json> out;
  std::istringstream in(slurp(dir / "sw" / "points.jsonl"));
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  REQUIRE(out.size() == 2);
  return out;
}

void write_points(const fs::path& dir, const std::vector<json>& records) {
  std::string text;
  for (const json& r : records) text += r.dump() + "\n";
  write_file(dir / "sw" / "points.jsonl", text);
}

}  // namespace

TEST_CASE("a results file cannot run a command through the report's gnuplot scripts", "[cli][hostile]") {
  const auto dir = scratch("files", "inject");
  json j = results_file(dir);
  const std::string marker = (dir / "PWNED").string();
  for (const std::string field : {"model", "strategy"}) {
    json evil = j;
    evil["results"][0][field] = "x\nsystem \"touch " + marker + "\"\nset title 'y";
    write_file(dir / "evil.json", evil.dump());
    refused(run_possim("report evil.json --out rep -q", dir, kTimeout), "evil.json: results[0]." + field);
    CHECK_FALSE(fs::exists(marker));
    CHECK_FALSE(fs::exists(dir / "rep"));
  }
  // A sweep's name, and the layer names a figure's data holds, are checked the same way.
  json evil = j;
  evil["scenario"] = "a\rb";
  write_file(dir / "evil.json", evil.dump());
  refused(run_possim("report evil.json --out rep -q", dir, kTimeout), "evil.json: scenario");
  evil = j;
  evil["results"][0]["layers"][0]["layer"] = "conv1\n\"; system \"touch " + marker + "\"";
  write_file(dir / "evil.json", evil.dump());
  refused(run_possim("report evil.json --out rep -q", dir, kTimeout), "results[0].layers[0].layer");
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("gnuplot scripts quote every string and put none on a line of its own", "[report][hostile]") {
  using namespace possim::report;
  // The boundary itself, whatever a reader let through: line breaks, a trailing backslash
  // (which joins the next line to a comment), quotes, backquotes and macros.
  const std::string hostile = "t\nsystem 'touch F'\r\x0b\x0c`touch G` @cmd \\";
  Figure f;
  f.id = "fig01-test";
  f.title = hostile;
  f.plot = "set title " + gp_quote(hostile) + "\nplot x title " + gp_quote(hostile) + "\n";
  const std::string script = gnuplot_script(f);
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    INFO(line);
    CHECK(line.rfind("system", 0) == std::string::npos);
    CHECK(line.find('\r') == std::string::npos);
    if (line.rfind("#", 0) == 0) CHECK((line.empty() || line.back() != '\\'));
  }
  CHECK(gp_quote("it's") == "'it''s'");
  CHECK(gp_quote("a\nb") == "'a b'");
  CHECK(gp_text("a\tb\nc\"d\\\\") == "a b c'd");
}

TEST_CASE("a results record that is not what possim writes is an error naming the field, never a crash",
          "[cli][hostile]") {
  const auto dir = scratch("files", "records");
  const json j = results_file(dir);
  const auto scale = [](json& r, const std::string& f, double k) {
    for (const std::string& key : {f, f + "_lo", f + "_hi"}) r[key] = k * r[key].get<double>();
  };
  struct Case {
    std::function<void(json&)> edit;
    std::string named;
  };
  const std::vector<Case> cases = {
      {[](json& r) { r["timeline"] = json::array({json::array({"a", "b"})}); }, "results[0].timeline[0]: has 2"},
      {[](json& r) { r["timeline"] = json::array({json::array({"a", "b", "c", 0, 1, 0, -1, 99999999})}); },
       "results[0].timeline[0][7]"},
      {[](json& r) { r["timeline"] = json::array({json::array({"a", "b", "c", 0, 1, 0, -1, 0, 10, -7, -1, 1})}); },
       "results[0].timeline[0][9]"},
      {[](json& r) { r["timeline"] = json::array({json::array({"a", "b", "c", 0, 1, 0, -1, 0, 10})}); },
       "results[0].timeline[0]: has 9"},
      {[](json& r) { r["nodes"] = 1e300; }, "results[0].nodes"},
      {[](json& r) { r["nodes"] = 65537; }, "results[0].nodes"},
      {[](json& r) { r["iterations"] = -5; }, "results[0].iterations"},
      {[](json& r) { r["strategy"] = std::string("ps\0\x1b[31m", 8); }, "results[0].strategy: 'ps\\x00\\x1b[31m'"},
      {[](json& r) { r["strategy"] = "frobnicate"; }, "results[0].strategy: 'frobnicate' is not a strategy"},
      {[](json& r) { r["engine"] = "../../etc"; }, "results[0].engine"},
      {[](json& r) { r["nic_gbps"] = 0; }, "results[0].nic_gbps"},
      {[](json& r) { r["iteration_s"] = -1; }, "results[0].iteration_s"},
      {[](json& r) { r["images_per_s"] = "fast"; }, "results[0].images_per_s"},
      {[](json& r) { r["time_s"].erase("compute_s"); }, "results[0].time_s.compute_s: missing"},
      {[](json& r) { r["layers"][0]["kind"] = "warp"; }, "results[0].layers[0].kind"},
      {[](json& r) { r["dropped_workers"] = {{7}}; }, "results[0].dropped_workers[0][0]"},
      {[](json& r) { r["partial"] = true; }, "results[0].failure: missing"},
      {[](json& r) { r["surprise"] = 1; }, "results[0].surprise: unknown field"},
      {[](json& r) { r.erase("links"); }, "results[0].links: missing"},
      // The run's profile is fitted (titanx_maxwell), so its results carry 95% intervals.
      {[](json& r) { r["images_per_s_lo"] = 2 * r["images_per_s"].get<double>(); }, "results[0].images_per_s_lo: is above"},
      {[](json& r) { r["speedup_hi"] = 0; }, "results[0].speedup_hi: is below"},
      {[](json& r) { r.erase("iteration_s_hi"); }, "results[0].iteration_s_hi: missing"},
      // In range, but not what its iteration time gives: a report would plot a number no run gave.
      // (Its interval moved with it, as an editor who knew the format would.)
      {[&](json& r) { scale(r, "images_per_s", 1e5 / r["images_per_s"].get<double>()); },
       "results[0].images_per_s: is 100000, but batch_per_gpu x"},
      {[&](json& r) { scale(r, "iteration_s", 2); }, "results[0].images_per_s: is "},
      {[&](json& r) { scale(r, "speedup", 1.5); }, "results[0].speedup: is "},
      {[](json& r) { r["scaling_efficiency"] = 0.999; }, "results[0].scaling_efficiency: is 0.999, but speedup / GPUs"},
      {[](json& r) { r["stall_share"] = 5; }, "results[0].stall_share: is 5, but gpu_stall_s / iteration_s"},
  };
  for (const Case& c : cases) {
    json evil = j;
    c.edit(evil["results"][0]);
    write_file(dir / "evil.json", evil.dump());
    INFO(c.named);
    refused(run_possim("report evil.json --out rep -q", dir, kTimeout), "evil.json: " + c.named);
    CHECK_FALSE(fs::exists(dir / "rep"));
  }
}

TEST_CASE("a report draws every results file the reader accepts, at the edges of its ranges",
          "[cli][hostile]") {
  const auto dir = scratch("files", "edges");
  const json j = results_file(dir);
  // The rates follow from the iteration time as a run derives them (Result::finish).
  const auto derive = [](json& r) {
    const double gpus = r["nodes"].get<double>() * r["gpus_per_node"].get<double>();
    const double it = r["iteration_s"].get<double>();
    const double images = it > 0 ? r["batch_per_gpu"].get<double>() * gpus / it : 0;
    const double single = r["single_gpu_images_per_s"].get<double>();
    r["images_per_s"] = images;
    r["speedup"] = single > 0 ? images / single : 0;
    r["scaling_efficiency"] = r["speedup"].get<double>() / gpus;
    r["stall_share"] = it > 0 ? r["gpu_stall_s"].get<double>() / it : 0;
    const double mean = std::max(r["sent_bytes_per_node_mean"].get<double>(), r["received_bytes_per_node_mean"].get<double>());
    r["traffic_max_over_mean"] =
        mean > 0 ? std::max(r["sent_bytes_per_node_max"].get<double>(), r["received_bytes_per_node_max"].get<double>()) / mean
                 : 1.0;
  };
  const std::vector<std::pair<std::string, std::function<void(json&)>>> edges = {
      {"nothing moves", [](json& r) { r["iteration_s"] = 0; }},
      {"a NIC of 1e-300 Gbit/s", [](json& r) { r["nic_gbps"] = 1e-300; }},
      {"rates of 1e15",
       [](json& r) {
         r["iteration_s"] = r["batch_per_gpu"].get<double>() * r["nodes"].get<double>() * r["gpus_per_node"].get<double>() / 1e15;
         r["single_gpu_images_per_s"] = 1;
       }},
      {"times and bytes at their caps", [](json& r) { r["iteration_s"] = 1e12; r["sent_bytes_per_node_max"] = 1e21; }},
      {"every share zero, windows at the caps",
       [](json& r) {
         for (auto& [k, v] : r["time_s"].items()) v = 0;
         for (auto& l : r["layers"]) {
           for (auto& [k, v] : l["time_s"].items()) v = 0;
           l["sync_start_s"] = -1e12;
           l["sync_end_s"] = 1e12;
         }
       }},
  };
  for (const auto& [what, edit] : edges) {
    json e = j;
    for (auto& r : e["results"]) {
      edit(r);
      derive(r);
      // The intervals follow their figures to the edge: from 0 to the figure.
      for (const char* f : {"iteration_s", "images_per_s", "speedup"}) {
        REQUIRE(r.contains(std::string(f) + "_lo"));
        r[std::string(f) + "_lo"] = 0;
        r[std::string(f) + "_hi"] = r[f];
      }
    }
    write_file(dir / "edge.json", e.dump());
    INFO(what);
    const Output o = run_possim("report edge.json --out rep -q", dir, kTimeout);
    INFO(o.err);
    CHECK(o.status == 0);
    CHECK(fs::exists(dir / "rep" / "index.html"));
    fs::remove_all(dir / "rep");
  }
}

TEST_CASE("a sweep resumes only from records possim wrote: a bad line is named FILE:LINE", "[cli][hostile]") {
  const auto dir = scratch("files", "resume");
  const std::vector<json> good = sweep_points(dir);
  const std::string before = slurp(dir / "sw" / "results.csv");
  struct Case {
    std::function<void(json&)> edit;
    std::string named;
  };
  const std::vector<Case> cases = {
      {[](json& r) { r["result"]["timeline"] = json::array({json::array({1})}); }, "points.jsonl:2: result.timeline[0]"},
      {[](json& r) { r["result"]["nodes"] = 1e300; }, "points.jsonl:2: result.nodes"},
      {[](json& r) { r["result"]["iterations"] = -5; }, "points.jsonl:2: result.iterations"},
      {[](json& r) { r["result"]["strategy"] = std::string("ps\0\x1b]0;x\x07", 9); }, "points.jsonl:2: result.strategy"},
      {[](json& r) { r["values"]["cluster.nic_gbps"] = 40; }, "points.jsonl:2: values"},
      {[](json& r) { r["key"] = "zz"; }, "points.jsonl:2: key"},
  };
  for (const Case& c : cases) {
    std::vector<json> records = good;
    c.edit(records[1]);
    write_points(dir, records);
    INFO(c.named);
    refused(run_possim("sweep sweep.json -q --engine analytic --out sw", dir, kTimeout), c.named);
    CHECK(slurp(dir / "sw" / "results.csv") == before);
  }
  // The same from `possim sweep merge`.
  std::vector<json> records = good;
  records[0]["result"]["nodes"] = -3;
  write_points(dir, records);
  refused(run_possim("sweep merge sw --out merged -q", dir, kTimeout), "points.jsonl:1: result.nodes");
  CHECK_FALSE(fs::exists(dir / "merged"));
  // And its sweep.json: axes a sweep has, values that are numbers or printable names.
  write_points(dir, good);
  const json manifest = json::parse(slurp(dir / "sw" / "sweep.json"));
  json m = manifest;
  m["axes"][0] = "cluster.frobs";
  write_file(dir / "sw" / "sweep.json", m.dump());
  refused(run_possim("sweep merge sw --out merged -q", dir, kTimeout), "sweep.json: axes[0]");
  m = manifest;
  m["points"][0]["values"]["cluster.nic_gbps"] = "1\n\x1b[2J";
  write_file(dir / "sw" / "sweep.json", m.dump());
  refused(run_possim("sweep merge sw --out merged -q", dir, kTimeout), "sweep.json: points[0].values.cluster.nic_gbps");
  CHECK_FALSE(fs::exists(dir / "merged"));
}

TEST_CASE("plan reads its scenario through the same door as run: depth, malformed JSON, exit 2",
          "[cli][hostile]") {
  const auto dir = scratch("files", "plan");
  write_file(dir / "deep.json", std::string(100000, '[') + std::string(100000, ']'));
  refused(run_possim("plan deep.json --engine analytic", dir, kTimeout), "nested deeper than 64");
  write_file(dir / "broken.json", "{\"name\": \"x\",");
  refused(run_possim("plan broken.json --engine analytic", dir, kTimeout), "broken.json: malformed JSON");
  write_file(dir / "list.json", "[1, 2]");
  refused(run_possim("plan list.json --engine analytic", dir, kTimeout), "list.json");
  write_file(dir / "s.json", small_scenario().dump());
  for (const char* nodes : {"''", "',,,'", "'2,,4'", "0x10", "' 2'"})
    refused(run_possim(std::string("plan s.json --engine analytic --nodes ") + nodes, dir, kTimeout), "--nodes");
  for (const char* grid : {"0x10", "inf", "nan", "1e999", "10,", "''"})
    refused(run_possim(std::string("plan s.json --engine analytic --nodes 2 --grid ") + grid, dir, kTimeout), "--grid");
  refused(run_possim("plan s.json --engine analytic --nodes 2 --strategies ps,,wfbp", dir, kTimeout), "--strategies");
}

TEST_CASE("numbers are decimal everywhere: hex, inf and nan are not numbers in prices and CSV cells",
          "[cli][hostile]") {
  const auto dir = scratch("files", "numbers");
  write_file(dir / "s.json", small_scenario().dump());
  const json prices = json::parse(slurp(fs::path(POSSIM_TESTS_DIR) / ".." / "prices" / "example.json"));
  for (const std::string key : {"0x10", "inf", "nan", " 10", "1e999"}) {
    json p = prices;
    p["nic"][key] = 100;
    p["switch_port"][key] = 100;
    write_file(dir / "p.json", p.dump());
    INFO(key);
    refused(run_possim("plan s.json --engine analytic --nodes 2 --prices p.json --images-per-s 100", dir, kTimeout),
            "p.json: nic." + key);
  }
  const std::string header = "model,strategy,nodes,nic_gbps,iteration_s\n";
  for (const std::string row : {"alexnet,ps,2,0x10,0.5", "alexnet,ps,2,10,inf", "alexnet,ps,0x2,10,0.5",
                                 "alexnet,ps,2,1e-300,0.5", "alexnet,ps,2,1e300,0.5", "alexnet,ps,2,10,1e300"}) {
    write_file(dir / "m.csv", header + row + "\n");
    INFO(row);
    refused(run_possim("validate m.csv --engine analytic", dir, kTimeout), "m.csv:2");
    refused(run_possim("calibrate fit m.csv --profile titanx_maxwell --free tcp_goodput --out f.json", dir, kTimeout),
            "m.csv:2");
    CHECK_FALSE(fs::exists(dir / "f.json"));
  }
}

TEST_CASE("text that is not UTF-8 or holds control characters is refused where it enters",
          "[cli][hostile]") {
  const auto dir = scratch("files", "utf8");
  // A scenario file whose name is not UTF-8: refused before anything runs (results.json
  // records the name, and JSON holds only UTF-8).
  write_file(dir / "s\xff.json", small_scenario().dump());
  refused(run_possim("run \"$(printf 's\\377.json')\" -q --engine analytic --out r", dir, kTimeout), "not UTF-8");
  CHECK_FALSE(fs::exists(dir / "r"));
  // A CSV cell that is not UTF-8, or holds an escape sequence.
  const std::string header = "model,strategy,nodes,nic_gbps,iteration_s,source\n";
  for (const std::string& source : {std::string("lab\xff"), std::string("\x1b[2J"), std::string("a\x7f")}) {
    write_file(dir / "m.csv", header + "alexnet,ps,2,10,0.5," + source + "\n");
    refused(run_possim("validate m.csv --engine analytic --json v.json", dir, kTimeout), "m.csv:2: source");
    CHECK_FALSE(fs::exists(dir / "v.json"));
  }
  // A profile name given on the command line.
  refused(run_possim("profile derive --from titanx_maxwell --device v100 --out o.json --name \"$(printf 'v\\377')\"",
                     dir, kTimeout),
          "--name");
  refused(run_possim("profile derive --from titanx_maxwell --device v100 --out o.json --name 'a\nb'", dir, kTimeout),
          "--name");
  CHECK_FALSE(fs::exists(dir / "o.json"));
  // A layer JSON's names reach results and reports: printable only.
  json net = json::parse(R"({"format": "possim-network-1", "name": "n", "input": [8, 1, 1], "layers": [
    {"name": "fc", "kind": "fc", "in": [8, 1, 1], "out": [8, 1, 1], "weight_params": 64, "bias_params": 8,
     "fwd_macs": 64, "fwd_flops": 128, "bwd_flops": 256, "fc_m": 8, "fc_n": 8}]})");
  net["name"] = "n\u202etxt.exe";  // a right-to-left override
  write_file(dir / "net.json", net.dump());
  json s = small_scenario();
  s["model"] = "net.json";
  write_file(dir / "s.json", s.dump());
  refused(run_possim("run s.json -q --engine analytic --out r", dir, kTimeout), "net.json: name");
  // A NUL inside a name is shown, not cut at.
  s = small_scenario();
  s["strategies"] = {std::string("ps\0evil", 7)};
  write_file(dir / "s.json", s.dump());
  refused(run_possim("run s.json -q --engine analytic --out r", dir, kTimeout), "'ps\\x00evil'");
}

TEST_CASE("possim's text checks: UTF-8, labels, printable messages, decimal numbers", "[input]") {
  using namespace possim;
  CHECK(is_utf8("plain"));
  CHECK(is_utf8("\xc3\xa9t\xc3\xa9"));
  CHECK_FALSE(is_utf8("\xff"));
  CHECK_FALSE(is_utf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(is_utf8("\xed\xa0\x80"));      // a surrogate
  CHECK_FALSE(is_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  CHECK(is_label_text("vgg19 (Titan X), 32 nodes"));
  CHECK_FALSE(is_label_text(std::string("a\0b", 3)));
  CHECK_FALSE(is_label_text("a\x1b[0m"));
  CHECK_FALSE(is_label_text("a\xc2\x85"));      // NEL, a C1 control
  CHECK_FALSE(is_label_text("a\xe2\x80\xae"));  // U+202E
  CHECK(printable_text(std::string("a\0\n\x1b\xff\xe2\x80\xae", 8)) == "a\\x00\\n\\x1b\\xff\\u202e");
  CHECK(parse_decimal("10") == 10.0);
  CHECK(parse_decimal("-2.5e-3") == -2.5e-3);
  CHECK(parse_decimal(".5") == 0.5);
  for (const char* bad : {"", "0x10", "inf", "nan", " 1", "1 ", "1e", "1e999", "1,5", "+", ".", "e5", "1.2.3"})
    CHECK_FALSE(parse_decimal(bad).has_value());
  CHECK(parse_decimal_integer("42") == 42);
  for (const char* bad : {"", "0x10", "4.0", "99999999999999999999", "1e3"})
    CHECK_FALSE(parse_decimal_integer(bad).has_value());
}

TEST_CASE("a device sheet is read through the door: a FIFO or /dev/zero is refused at once", "[cli][hostile]") {
  const auto dir = scratch("files", "sheet");
  REQUIRE(mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  for (const std::string sheet : {"fifo.json", "./fifo.json", "/dev/zero", "/dev/urandom"}) {
    INFO(sheet);
    refused(run_possim("profile derive --from titanx_maxwell --device " + sheet + " --out o.json", dir, 20),
            "not a regular file");
    CHECK_FALSE(fs::exists(dir / "o.json"));
  }
}

TEST_CASE("a layer JSON read again is parsed again only when the file changed", "[input]") {
  const auto dir = scratch("files", "layer_cache");
  const auto net = [](const std::string& name) {
    return json{{"format", "possim-network-1"}, {"name", name}, {"input", {8, 1, 1}},
                {"layers", {{{"name", "fc"}, {"kind", "fc"}, {"in", {8, 1, 1}}, {"out", {8, 1, 1}},
                             {"weight_params", 64}, {"bias_params", 8}, {"fwd_macs", 64.0}, {"fwd_flops", 128.0},
                             {"bwd_flops", 256.0}, {"fc_m", 8}, {"fc_n", 8}}}}};
  };
  write_file(dir / "m.json", net("first").dump());
  CHECK(possim::load_network("m.json", dir.string()).name == "first");
  CHECK(possim::load_network("m.json", dir.string()).name == "first");
  write_file(dir / "m.json", net("second, longer").dump());  // another size: another file
  CHECK(possim::load_network("m.json", dir.string()).name == "second, longer");
}
