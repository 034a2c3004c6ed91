#include "report/html.hpp"

#include <cstdio>

#include "model/run/version.hpp"

namespace possim::report {

namespace {

using nlohmann::json;

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// A string field of the provenance, or "".
std::string field(const json& j, const char* a, const char* b = nullptr) {
  if (!j.is_object() || !j.contains(a)) return "";
  const json& v = b ? (j[a].is_object() && j[a].contains(b) ? j[a][b] : json()) : j[a];
  return v.is_string() ? v.get<std::string>() : v.is_number() ? v.dump() : "";
}

std::string hash_text(const std::string& h) { return h.empty() ? "" : " (sha256 " + h.substr(0, 12) + "...)"; }

const char* kStyle =
    "body{font-family:sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}"
    "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}"
    "figure{margin:1.5em 0}figure svg{width:100%;height:auto}"
    "figcaption{font-size:.9em;color:#444}code{font-size:.92em}"
    "table{border-collapse:collapse;font-size:.88em}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
    "td:first-child,th:first-child{text-align:left}.note{color:#666;font-style:italic}";

std::string measured_table(const std::vector<MeasuredMatch>& matches, const ReportInputs& in) {
  std::string t = "<table>\n<tr><th>point</th><th>model</th><th>strategy</th><th>nodes</th><th>Gbit/s</th>"
                  "<th>measured</th><th>predicted</th><th>error (unit measured)</th><th>prediction from</th></tr>\n";
  for (const auto& m : matches) {
    const auto& p = *m.measured;
    const std::string unit = p.measured_as == "images_per_s" ? " img/s" : p.measured_as == "speedup" ? "x" : " s";
    char measured[64], predicted[64] = "-", error[32] = "-";
    std::snprintf(measured, sizeof measured, "%.4g%s", p.measured_value, unit.c_str());
    if (m.predicted) {
      std::snprintf(predicted, sizeof predicted, "%.4g%s", p.in_measured_unit(m.predicted->result.iteration_s), unit.c_str());
      std::snprintf(error, sizeof error, "%+.1f%%", 100 * m.error);
    }
    t += "<tr><td>" + escape(p.where) + "</td><td>" + escape(p.model) + "</td><td>" + escape(p.strategy) +
         "</td><td>" + std::to_string(p.nodes) + "</td><td>" + num(p.nic_gbps) + "</td><td>" + measured +
         "</td><td>" + predicted + "</td><td>" + error + "</td><td>" +
         (m.predicted ? escape(in.files.at(m.predicted->file).path + " (" + m.predicted->result.engine + ")")
                      : std::string("no prediction among the results")) +
         "</td></tr>\n";
  }
  return t + "</table>\n";
}

}  // namespace

std::string provenance_text(const ResultsFile& f) {
  const json& p = f.provenance;
  if (!p.is_object()) return f.path + " (no provenance recorded)";
  std::string s = f.path + ": possim " + field(p, "possim_version") + ", " + field(p, "engine") + " engine, ";
  if (!field(p, "sweep", "path").empty())
    s += "sweep " + field(p, "sweep", "path") + hash_text(field(p, "sweep", "sha256")) + " over ";
  s += "scenario " + field(p, "scenario", "path") + hash_text(field(p, "scenario", "sha256"));
  if (p.contains("model") && p["model"].is_object() && !field(p, "model", "sha256").empty())
    s += ", model " + field(p, "model", "ref") + hash_text(field(p, "model", "sha256"));
  s += ", profile " + field(p, "profile", "name") + hash_text(field(p, "profile", "sha256"));
  if (!field(p, "seed").empty()) s += ", seed " + field(p, "seed");
  return s;
}

std::string report_html(const std::string& title, const ReportInputs& in,
                        const std::vector<RenderedFigure>& figures,
                        const std::vector<MeasuredMatch>& matches, const std::vector<std::string>& notes) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" + escape(title) +
                  "</h1>\n<p>Made by <code>possim report</code> (possim " + escape(possim_version()) +
                  ") from:</p>\n<ul>\n";
  for (const auto& f : in.files) h += "<li>" + escape(provenance_text(f)) + "</li>\n";
  if (!in.measured.path.empty()) h += "<li>measured points: " + escape(in.measured.path) + "</li>\n";
  h += "</ul>\n<p>Each figure's PNG, gnuplot script and data are beside this page; "
       "<code>gnuplot ID.gp</code> there draws a figure again.</p>\n";
  std::string section;
  for (const auto& r : figures) {
    const Figure& f = *r.figure;
    if (f.section != section) h += "<h2>" + escape(section = f.section) + "</h2>\n";
    std::string made;
    for (const std::size_t i : f.files) made += std::string(made.empty() ? "" : "; ") + provenance_text(in.files.at(i));
    h += "<figure id=\"" + f.id + "\">\n" + r.svg + "\n<figcaption><b>" + escape(f.title) + ".</b> " + escape(f.what) +
         " Made from " + escape(made) + ". <a href=\"" + f.id + ".png\">PNG</a> &middot; <a href=\"" + f.id +
         ".gp\">gnuplot script</a> &middot; <a href=\"" + f.id + ".dat\">data</a></figcaption>\n</figure>\n";
  }
  if (!matches.empty()) {
    if (section != "Measured vs predicted") h += "<h2>Measured vs predicted</h2>\n";
    h += measured_table(matches, in);
  }
  for (const auto& n : notes) h += "<p class=\"note\">" + escape(n) + "</p>\n";
  if (figures.empty()) h += "<p class=\"note\">The results hold nothing to plot (one point each).</p>\n";
  return h + "</body>\n</html>\n";
}

}  // namespace possim::report
