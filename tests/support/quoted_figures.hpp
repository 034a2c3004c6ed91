// The figures README.md and reports/ quote, checked against the commands that produce them
// (docs/quoted_figures.json says which command, or which committed results file, each comes
// from). A quote is either a fenced block (the command's whole stdout) or a passage of
// text with "{}" where each figure sits: the passage is found in the file, each figure read
// from it and compared with what its source gives now, so a figure edited by hand, or left
// behind by a change, is named by file and line.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace possim::test::figures {

using nlohmann::json;

// What a check found wrong: where the quote is, what it says, what its source gives.
struct Mismatch {
  std::string where;     // "README.md:167"
  std::string quoted;    // as the file has it
  std::string produced;  // as its source gives it now
  std::string by;        // the command or file it comes from
};

inline std::string describe(const Mismatch& m) {
  return m.where + ": quotes '" + m.quoted + "', " + m.by + " gives '" + m.produced + "'";
}

// How the checker reaches files and runs commands: the test gives the repository and the
// binary; the self-test gives a file with a figure edited.
struct Access {
  std::function<std::string(const std::string& file)> read;                  // throws if absent
  std::function<std::string(const std::string& shell_args)> run_possim;      // stdout; throws on failure
};

inline int line_of(const std::string& text, std::size_t offset) {
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
}

// A passage with "{}" placeholders as a regular expression: literal text escaped, each run
// of white space matching any run (prose is rewrapped), each "{}" a number.
inline std::regex passage_regex(const std::string& passage) {
  static const std::string special = R"(\^$.|?*+()[]{}/)";
  std::string re;
  for (std::size_t i = 0; i < passage.size(); ++i) {
    const char c = passage[i];
    if (passage.compare(i, 2, "{}") == 0) {
      re += R"(([-+]?[0-9][0-9,]*(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?))";
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      while (i + 1 < passage.size() && std::isspace(static_cast<unsigned char>(passage[i + 1]))) ++i;
      re += R"(\s+)";
    } else {
      if (special.find(c) != std::string::npos) re += '\\';
      re += c;
    }
  }
  return std::regex(re);
}

// Where the line starting with `after` is in text, searched from `from`; npos when absent.
inline std::size_t anchor_offset(const std::string& text, const std::string& after, std::size_t from = 0) {
  if (after.empty()) return from;
  if (from == 0 && text.compare(0, after.size(), after) == 0) return 0;
  const std::size_t at = text.find("\n" + after, from == 0 ? 0 : from - 1);
  return at == std::string::npos ? at : at + 1;
}

// "after": one anchor, or several, each found after the one before ("## Every point", then
// "### h100_resnet50": the second section of that name).
inline std::vector<std::string> anchors(const json& entry) {
  if (!entry.contains("after")) return {};
  if (entry["after"].is_string()) return {entry["after"].get<std::string>()};
  return entry["after"].get<std::vector<std::string>>();
}

inline std::size_t anchors_offset(const std::string& text, const std::string& file,
                                  const std::vector<std::string>& after) {
  std::size_t at = 0;
  for (const std::string& a : after) {
    at = anchor_offset(text, a, at);
    if (at == std::string::npos) throw std::runtime_error(file + ": no line starts with '" + a + "'");
    at += a.size();
  }
  return at;
}

struct Found {
  std::vector<std::string> values;
  std::vector<int> lines;
};

// The passage's figures in text, from the anchor on; nothing found throws, naming it.
inline Found find_passage(const std::string& text, const std::string& file, const std::string& passage,
                          const std::vector<std::string>& after) {
  const std::size_t from = anchors_offset(text, file, after);
  std::smatch m;
  const std::regex re = passage_regex(passage);
  if (!std::regex_search(text.begin() + std::ptrdiff_t(from), text.end(), m, re))
    throw std::runtime_error(file + ": the passage '" + passage + "' is not there" +
                             (after.empty() ? "" : " (after '" + after.back() + "')") +
                             ": reworded? update docs/quoted_figures.json");
  Found f;
  for (std::size_t k = 1; k < m.size(); ++k) {
    f.values.push_back(m[k].str());
    f.lines.push_back(line_of(text, from + std::size_t(m.position(k))));
  }
  return f;
}

inline double number(const std::string& s) {
  std::string t;
  for (char c : s)
    if (c != ',') t += c;
  return std::stod(t);
}

inline std::string format_number(double v, const std::string& fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt.c_str(), v);
  std::string s = buf;
  // Exponents as prose writes them: 3.14e9, not 3.14e+09.
  for (const char* from : {"e+0", "e+", "e-0"})
    for (std::size_t at; (at = s.find(from)) != std::string::npos;)
      s.replace(at, std::string(from).size(), from[1] == '-' ? "e-" : "e");
  // A figure that rounds to zero is quoted "0", never "-0".
  if (s.size() > 1 && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

// One CSV row's cells by column name (possim's results.csv: no quoted cells).
inline std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream s(l);
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    if (!l.empty() && l.back() == ',') cells.push_back("");
    return cells;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (header.empty()) {
      header = split(line);
      continue;
    }
    const std::vector<std::string> cells = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

// Runs each command once and keeps its stdout; the scratch folder's path stands in for
// "{scratch}" in the command.
class Commands {
 public:
  Commands(const json& manifest, Access access, std::string scratch)
      : manifest_(manifest), access_(std::move(access)), scratch_(std::move(scratch)) {}

  // The arguments as the manifest has them, with "{scratch}" put as `scratch`.
  std::string typed(const std::string& id, const std::string& scratch = "{scratch}") const {
    if (!manifest_.contains("commands") || !manifest_["commands"].contains(id))
      throw std::runtime_error("docs/quoted_figures.json: no command '" + id + "'");
    std::string args = manifest_["commands"][id]["args"].get<std::string>();
    for (std::size_t at = 0; (at = args.find("{scratch}", at)) != std::string::npos; at += scratch.size())
      args.replace(at, 9, scratch);
    return args;
  }
  std::string shell_args(const std::string& id) const { return typed(id, scratch_); }
  // As a message names it: the scratch folder left out ("--out run_vgg19").
  std::string label(const std::string& id) const {
    std::string args = typed(id);
    for (std::size_t at; (at = args.find("{scratch}/")) != std::string::npos;) args.erase(at, 10);
    return "`possim " + args + "`";
  }
  bool in_ci(const std::string& id) const { return manifest_["commands"][id].value("ci", false); }
  const std::string& stdout_of(const std::string& id) {
    auto it = out_.find(id);
    if (it == out_.end()) it = out_.emplace(id, access_.run_possim(shell_args(id))).first;
    return it->second;
  }
  std::string file_in_scratch(const std::string& id, const std::string& file) {
    stdout_of(id);
    return access_.read(scratch_ + "/" + file);
  }

 private:
  json manifest_;
  Access access_;
  std::string scratch_;
  std::map<std::string, std::string> out_;
};

// A value's source, as the text its quote should show, and what produced it.
struct Produced {
  std::string text;
  std::string by;
  double number = 0;  // where the source is numeric
};

inline Produced produce(const json& v, Commands& cmds, const Access& access);

inline double numeric(const json& v, Commands& cmds, const Access& access, std::string* by) {
  if (v.contains("min_of") || v.contains("max_of")) {
    const bool lo = v.contains("min_of");
    double best = lo ? INFINITY : -INFINITY;
    for (const json& e : v[lo ? "min_of" : "max_of"]) {
      const Produced p = produce(e, cmds, access);
      best = lo ? std::min(best, p.number) : std::max(best, p.number);
      *by = p.by;
    }
    return best;
  }
  return produce(v, cmds, access).number;
}

// The value: a results.csv cell (optionally over another, scaled), a figure in a command's
// stdout or in a committed file, or the least/most of several; formatted with "format".
inline Produced produce(const json& v, Commands& cmds, const Access& access) {
  Produced p;
  if (v.contains("min_of") || v.contains("max_of")) {
    p.number = numeric(v, cmds, access, &p.by);
  } else if (v.contains("csv")) {
    const std::string id = v["command"].get<std::string>();
    p.by = cmds.label(id);
    const std::string text = cmds.file_in_scratch(id, v["csv"].get<std::string>());
    const json& where = v["where"];
    bool hit = false;
    for (const auto& row : csv_rows(text)) {
      bool ok = true;
      for (const auto& [k, want] : where.items()) ok = ok && row.count(k) && row.at(k) == want.get<std::string>();
      if (!ok) continue;
      p.number = std::stod(row.at(v["column"].get<std::string>()));
      if (v.contains("per")) p.number /= std::stod(row.at(v["per"].get<std::string>()));
      hit = true;
      break;
    }
    if (!hit) throw std::runtime_error(p.by + ": no row with " + where.dump());
    p.number *= v.value("scale", 1.0);
  } else if (v.contains("stdout") || v.contains("file")) {
    const bool out = v.contains("stdout");
    const std::string src = out ? cmds.stdout_of(v["command"].get<std::string>())
                                : access.read(v["file"].get<std::string>());
    p.by = out ? cmds.label(v["command"].get<std::string>()) : v["file"].get<std::string>();
    const Found f = find_passage(src, p.by, v[out ? "stdout" : "quote"].get<std::string>(), anchors(v));
    const std::size_t k = v.value("capture", 0);
    p.text = f.values.at(k);
    p.number = number(p.text) * v.value("scale", 1.0);  // scaled (ms to s), give it a format too
    p.by += out ? "" : ":" + std::to_string(f.lines.at(k));
  } else {
    throw std::runtime_error("docs/quoted_figures.json: a value with no source: " + v.dump());
  }
  if (v.contains("format")) p.text = format_number(p.number, v["format"].get<std::string>());
  return p;
}

// Whether an entry needs only committed files, or commands CI reruns, or others.
inline void commands_used(const json& j, std::vector<std::string>* ids) {
  if (j.is_object()) {
    for (const char* key : {"command", "block"})
      if (j.contains(key)) ids->push_back(j[key].get<std::string>());
    for (const auto& [k, v] : j.items()) commands_used(v, ids);
  } else if (j.is_array()) {
    for (const auto& v : j) commands_used(v, ids);
  }
}

// The fenced block after `after`: its lines and the file line of its first.
inline std::pair<std::vector<std::string>, int> fenced_block(const std::string& text, const std::string& file,
                                                             const std::vector<std::string>& after) {
  const std::size_t open = text.find("```", anchors_offset(text, file, after));
  if (open == std::string::npos) throw std::runtime_error(file + ": no fenced block after the anchor");
  const std::size_t body = text.find('\n', open) + 1;
  const std::size_t close = text.find("\n```", body - 1);
  std::vector<std::string> lines;
  std::istringstream in(text.substr(body, close + 1 - body));
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return {lines, line_of(text, body)};
}

inline std::vector<std::string> printed_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("wrote ", 0) != 0) lines.push_back(l);  // where its files went: a temporary folder
  return lines;
}

enum class Scope { files_only, ci, all };

// Checks the manifest's entries within scope; returns what does not match. A source that
// cannot be read or run throws.
inline std::vector<Mismatch> check(const json& manifest, const Access& access, const std::string& scratch,
                                   Scope scope) {
  Commands cmds(manifest, access, scratch);
  std::vector<Mismatch> bad;
  for (const json& e : manifest.at("quotes")) {
    std::vector<std::string> ids;
    commands_used(e, &ids);
    const bool skip = std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
      return scope == Scope::files_only || (scope == Scope::ci && !cmds.in_ci(id));
    });
    if (skip) continue;
    const std::string file = e.at("file").get<std::string>();
    const std::string text = access.read(file);
    if (e.contains("block")) {
      const std::string id = e["block"].get<std::string>();
      auto [quoted, first] = fenced_block(text, file, anchors(e));
      std::vector<std::string> printed = printed_lines(cmds.stdout_of(id));
      // A block may open with the command as typed ("$ ./possim ..."): it must be this one.
      if (!quoted.empty() && quoted[0].rfind("$ ", 0) == 0) printed.insert(printed.begin(), "$ ./possim " + cmds.typed(id));
      for (std::size_t i = 0; i < std::max(quoted.size(), printed.size()); ++i) {
        const std::string q = i < quoted.size() ? quoted[i] : "(end of block)";
        const std::string p = i < printed.size() ? printed[i] : "(end of output)";
        if (q != p) {
          bad.push_back({file + ":" + std::to_string(first + int(std::min(i, quoted.size()))), q, p, cmds.label(id)});
          break;
        }
      }
      continue;
    }
    const Found f = find_passage(text, file, e.at("passage").get<std::string>(), anchors(e));
    const json& values = e.at("values");
    if (values.size() != f.values.size())
      throw std::runtime_error(file + ": passage '" + e["passage"].get<std::string>() + "' has " +
                               std::to_string(f.values.size()) + " figures, " + std::to_string(values.size()) +
                               " values in docs/quoted_figures.json");
    for (std::size_t k = 0; k < values.size(); ++k) {
      // A list: a figure quoted for several sources ("94.9% on both"), each must give it.
      const json sources = values[k].is_array() ? values[k] : json::array({values[k]});
      for (const json& v : sources) {
        const Produced p = produce(v, cmds, access);
        const std::string where = file + ":" + std::to_string(f.lines[k]);
        // "below": the quote is a bound ("network under 0.1%"), held when the figure is under it.
        const bool ok = v.value("bound", "") == "below" ? p.number < number(f.values[k]) : p.text == f.values[k];
        if (!ok) bad.push_back({where, f.values[k], p.text, p.by});
      }
    }
  }
  return bad;
}

}  // namespace possim::test::figures
