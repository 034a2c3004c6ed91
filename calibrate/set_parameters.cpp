#include "calibrate/set_parameters.hpp"

#include <cstdio>
#include <set>

#include "calibrate/cluster_fit.hpp"
#include "model/input/error.hpp"
#include "model/input/text.hpp"

namespace possim::calibrate {

namespace {

std::string fmt(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

}  // namespace

SetParameter parse_set_parameter(const Profile& base, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) throw InputError("--set", "", "'" + text + "' has no '='", "NAME=VALUE");
  SetParameter s;
  s.name = text.substr(0, eq);
  try {
    check_fit_parameter(base, s.name);
  } catch (const InputError& e) {  // it names --free, whose list of names holds here too
    std::string what = e.what();
    if (const auto at = what.find("--free"); at != std::string::npos) what.replace(at, 6, "--set");
    throw InputError(what);
  }
  const std::optional<double> v = parse_decimal(text.substr(eq + 1));
  const auto [lo, hi] = parameter_range(base, s.name);
  if (!v || !(*v >= lo && *v <= hi))
    throw InputError("--set", s.name, "'" + text.substr(eq + 1) + "' is not in its physical range",
                     "a number in [" + fmt(lo) + ", " + fmt(hi) + "]");
  s.value = *v;
  return s;
}

Profile set_parameters(const Profile& base, const std::vector<SetParameter>& set, const std::string& why) {
  if (set.empty()) return base;
  if (why.empty())
    throw InputError("--set-why", "", "is missing: a value set by hand needs its source",
                     "where the value comes from (a fit, a measurement), one line");
  std::set<std::string> seen;
  std::vector<std::string> names;
  std::vector<double> values;
  for (const auto& s : set) {
    if (!seen.insert(s.name).second)
      throw InputError("--set", s.name, "is given twice", "each parameter once");
    names.push_back(s.name);
    values.push_back(s.value);
  }
  Profile p = with_parameters(base, names, values);
  for (const auto& s : set) {
    const std::string said = s.name + " " + fmt(s.value) + " (set, not fitted: " + why + ")";
    if (s.name == "tensor_core_scale" || s.name == "tf32_scale") {
      std::string& src = p.sources["peak_flops_per_s_by_precision"];
      src = (src.empty() ? "base profile " + base.name + "'s tensor-core peaks" : src) +
            (s.name == "tf32_scale" ? "; the tf32 peak further x " : "; x ") + said;
    } else if (s.name == "memory_bound_scale") {
      p.sources["kind_efficiency"] += " Then the memory-bound kinds (all but conv and fc) x " + said;
    } else {
      for (std::string* src : parameter_sources(p, s.name)) *src = parameter_mechanism(s.name) + " -- " + said;
    }
  }
  return p;
}

}  // namespace possim::calibrate
