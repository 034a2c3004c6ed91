#include "report/figure.hpp"

#include <cstdio>
#include <map>

namespace possim::report {

std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') out += "''";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out + "'";
}

std::string series_label(const ReportInputs& in, const ReportPoint& p) {
  std::string label = p.result.strategy;
  if (in.engines.size() > 1) label += " (" + p.result.engine + ")";
  if (in.files.size() > in.engines.size()) label += " [" + in.files.at(p.file).name + "]";
  return label;
}

std::string strategy_colour(const std::string& strategy) {
  static const std::map<std::string, std::string> colours = {
      {"single", "#7f7f7f"},   {"ps", "#d62728"},   {"wfbp", "#ff7f0e"},  {"poseidon", "#1f77b4"},
      {"tf_stock", "#9467bd"}, {"adam", "#8c564b"}, {"onebit", "#e377c2"}, {"allreduce", "#2ca02c"}};
  const auto it = colours.find(strategy);
  return it == colours.end() ? "#17becf" : it->second;
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace possim::report
