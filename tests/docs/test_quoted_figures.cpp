// No stale figure: what README.md and reports/ quote is what its command, or the committed
// results file its benchmark wrote, gives now (docs/quoted_figures.json says which).
#include <catch2/catch.hpp>
#include <fstream>

#include "support/quoted_figures.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using namespace possim::test;
using figures::json;

namespace {

const fs::path kRoot = fs::path(POSSIM_TESTS_DIR).parent_path();

json manifest() { return json::parse(slurp(kRoot / "docs/quoted_figures.json")); }

std::string read_in_repo(const std::string& file) {
  const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : kRoot / file;
  if (!fs::is_regular_file(p)) throw std::runtime_error(file + ": no such file");
  return slurp(p);
}

// possim with these arguments (shell syntax: a glob or a pipe) in the repository root;
// its stderr into the scratch folder, never into the repository.
figures::Access repo_access(const fs::path& scratch) {
  figures::Access a;
  a.read = read_in_repo;
  a.run_possim = [scratch](const std::string& args) {
    const Output o = run_command("'" + possim_binary() + "' " + args, kRoot, 0, scratch);
    if (o.status != 0) throw std::runtime_error("`possim " + args + "` failed: " + o.err);
    return o.out;
  };
  return a;
}

void require_none(const std::vector<figures::Mismatch>& bad) {
  std::string all;
  for (const auto& m : bad) all += figures::describe(m) + "\n";
  INFO(all);
  CHECK(bad.empty());
}

}  // namespace

TEST_CASE("quoted figures: README and reports say what their commands print now", "[figures]") {
  const auto dir = scratch("figures", "ci");
  require_none(figures::check(manifest(), repo_access(dir), dir.string(), figures::Scope::ci));
}

TEST_CASE("quoted figures: every report section rerun (slow, by hand)", "[.figures-all]") {
  const auto dir = scratch("figures", "all");
  require_none(figures::check(manifest(), repo_access(dir), dir.string(), figures::Scope::all));
}

TEST_CASE("quoted figures: a figure edited by hand is named by file and line") {
  const auto dir = scratch("figures", "edit");
  const json m = manifest();
  const figures::Access real = repo_access(dir);
  // The committed files agree with each other (the quotes that need no command).
  require_none(figures::check(m, real, dir.string(), figures::Scope::files_only));

  // README's benchmark figure for the plan command, edited: X.YZ s becomes 9.99 s.
  const std::string readme = read_in_repo("README.md");
  const std::string lead = "SimGrid engine: ";
  std::size_t at = readme.find(lead + "0.");
  REQUIRE(at != std::string::npos);
  at += lead.size();
  const std::string figure = readme.substr(at, 4);  // as quoted, e.g. 0.71
  std::string edited = readme;
  edited.replace(at, 4, "9.99");
  figures::Access hand = real;
  hand.read = [&](const std::string& f) { return f == "README.md" ? edited : real.read(f); };
  const auto bad = figures::check(m, hand, dir.string(), figures::Scope::files_only);
  REQUIRE(bad.size() == 1);
  const int line = 1 + int(std::count(readme.begin(), readme.begin() + std::ptrdiff_t(at), '\n'));
  CHECK(bad[0].where == "README.md:" + std::to_string(line));
  CHECK(bad[0].quoted == "9.99");
  CHECK(bad[0].produced == figure);
  CHECK(bad[0].by.rfind("bench/results/plan.md:", 0) == 0);

  // A passage reworded so that it no longer reads as the manifest says: named, not skipped.
  std::string reworded = readme;
  const std::string passage = "takes 1.08 s; its report";
  REQUIRE(reworded.find(passage) != std::string::npos);
  reworded.replace(reworded.find(passage), passage.size(), "takes about a second; its report");
  hand.read = [&](const std::string& f) { return f == "README.md" ? reworded : real.read(f); };
  CHECK_THROWS_WITH(figures::check(m, hand, dir.string(), figures::Scope::files_only),
                    Catch::Contains("README.md: the passage") && Catch::Contains("is not there"));
}

TEST_CASE("quoted figures: passages and blocks and formats and bounds by hand") {
  const auto dir = scratch("figures", "hand");
  figures::Access a;
  std::map<std::string, std::string> files = {
      {"doc.md", "# Doc\nThe run takes 1.50 s\nand 12% is\nnetwork; under 0.1% waits.\n\n```\n$ ./possim echo\nline one\nline 2\n```\n"},
      {"res.md", "| wall s | 1.5 |\n| net | 0.1234 |\n| wait | 0.00049 |\n| other | 0.5 |\n"}};
  a.read = [&](const std::string& f) { return files.at(f); };
  std::string printed = "line one\nline 2\nwrote x\n";
  a.run_possim = [&](const std::string&) { return printed; };
  const json m = json::parse(R"({
    "commands": {"echo": {"args": "echo", "ci": true}},
    "quotes": [
      {"file": "doc.md", "passage": "takes {} s and {}% is network; under {}% waits.",
       "values": [{"file": "res.md", "quote": "| wall s | {} |", "format": "%.2f"},
                  {"max_of": [{"file": "res.md", "quote": "| net | {} |"}, {"file": "res.md", "quote": "| other | {} |"}],
                   "format": "%.0f"},
                  {"file": "res.md", "quote": "| wait | {} |", "bound": "below"}]},
      {"file": "doc.md", "block": "echo", "after": "network;"}
    ]})");
  auto bad = figures::check(m, a, dir.string(), figures::Scope::ci);
  REQUIRE(bad.size() == 1);  // 12 against max(0.1234, 0.5) = "0"; the bound and the block hold
  CHECK(bad[0].where == "doc.md:3");
  CHECK(bad[0].quoted == "12");
  CHECK(bad[0].produced == "0");

  // The block: its "$ ./possim echo" line is the command; one line changed is named by line.
  printed = "line one\nline two\n";
  bad = figures::check(m, a, dir.string(), figures::Scope::ci);
  REQUIRE(bad.size() == 2);
  CHECK(bad[1].where == "doc.md:9");
  CHECK(bad[1].quoted == "line 2");
  CHECK(bad[1].produced == "line two");
  // Out of scope: nothing that needs a command runs.
  CHECK(figures::check(m, a, dir.string(), figures::Scope::files_only).size() == 1);

  CHECK(figures::format_number(3138503743.1, "%.3g") == "3.14e9");
  CHECK(figures::format_number(-0.0001, "%.2f") == "0.00");
  CHECK(figures::format_number(0.9414824447, "%.4f") == "0.9415");
}
