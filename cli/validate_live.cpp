// possim validate SCENARIO --live: every point run for real (live engine) and simulated
// (SimGrid) on the same plan at the same network scale; per point the measured and the
// predicted seconds per iteration and the relative error, then the mean, median and
// worst. It fits nothing: a large error is the model's to explain.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/table.hpp"
#include "cli/validate_live.hpp"
#include "live/live_settings.hpp"
#include "model/plan/network_scale.hpp"
#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"
#include "model/run/sweep.hpp"
#include "model/input/text.hpp"

namespace possim::cli {

namespace {

// The simulator on the plan the live engine runs: its network scaled as the scenario says.
class AtScale : public Engine {
 public:
  AtScale(const Engine& inner, double k) : inner_(inner), k_(k) {}
  const char* name() const override { return inner_.name(); }
  Result run(const SyncPlan& plan, const RunOptions& opt) const override {
    return inner_.run(scale_network(plan, k_), opt);
  }

 private:
  const Engine& inner_;
  double k_;
};

// The steady iterations (after the first), seconds each.
std::vector<double> steady(const Result& r) {
  std::vector<double> d;
  for (std::size_t t = 1; t < r.iteration_end_s.size(); ++t) d.push_back(r.iteration_end_s[t] - r.iteration_end_s[t - 1]);
  return d;
}

// Their median: a live run on a shared machine has the odd iteration that another
// tenant's burst or a retransmission timeout stretched; the median is the run's own pace.
double median_s(const Result& r) {
  std::vector<double> d = steady(r);
  if (d.empty()) return r.iteration_s;
  std::sort(d.begin(), d.end());
  return d.size() % 2 ? d[d.size() / 2] : (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;
}

// Their standard deviation, seconds.
double spread_s(const Result& r) {
  const std::vector<double> d = steady(r);
  if (d.size() < 2) return 0;
  double mean = 0, var = 0;
  for (double x : d) mean += x / double(d.size());
  for (double x : d) var += (x - mean) * (x - mean) / double(d.size() - 1);
  return std::sqrt(var);
}

}  // namespace

int validate_live(const std::string& scenario_path, double tolerance, const std::string& json_out) {
  handle_interrupts();
  const Scenario s = load_scenario(scenario_path);
  require_one_model(s, "possim validate --live");
  const live::LiveSettings settings = live::live_settings(s);
  EngineRequest q = engine_request(&s);
  q.reduce = "off";  // the same nodes as the live run
  // SimGrid first: the static possim restarts as possim-modules there, before anything live.
  const auto simgrid = make_engine("simgrid", q);
  const auto live = make_engine("live", engine_request(&s));
  const AtScale sim(*simgrid, settings.network_scale);

  std::cerr << "possim validate: " << sweep_points(s).size() << " points, live then simgrid\n";
  const std::vector<Result> measured = run_sweep(s, *live, 1);
  const std::vector<Result> predicted = run_sweep(s, sim, 1);

  Table t({"strategy", "nodes", "Gbit/s", "live s/iter", "+-", "mean", "live range", "simgrid s/iter", "error"});
  nlohmann::json points = nlohmann::json::array();
  std::vector<double> errors;
  std::size_t in_range = 0;
  std::string strategy, worst_where;
  double worst = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const Result& m = measured[i];
    const Result& p = predicted[i];
    if (!strategy.empty() && m.strategy != strategy) t.separator();
    strategy = m.strategy;
    const double measured_s = median_s(m);
    // The live run's own iterations, fastest to slowest: a prediction inside them is as
    // close as the real system is to itself from one iteration to the next.
    std::vector<double> d = steady(m);
    if (d.empty()) d.push_back(m.iteration_s);
    const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
    const bool inside = p.iteration_s >= *lo && p.iteration_s <= *hi;
    in_range += inside ? 1 : 0;
    const double err = p.iteration_s / measured_s - 1;  // prediction relative to measurement
    errors.push_back(std::abs(err));
    const std::string where = m.strategy + " at " + counted(m.cluster.nodes, "node") + ", " +
                              fixed(m.cluster.nic_gbps, 1) + " Gbit/s";
    if (std::abs(err) >= worst) {
      worst = std::abs(err);
      worst_where = where;
    }
    t.add({m.strategy, std::to_string(m.cluster.nodes), fixed(m.cluster.nic_gbps, 1), fixed(measured_s, 4),
           fixed(spread_s(m), 4), fixed(m.iteration_s, 4), fixed(*lo, 3) + "-" + fixed(*hi, 3),
           fixed(p.iteration_s, 4) + (inside ? "  " : " *"), (err >= 0 ? "+" : "") + fixed(100 * err, 1) + "%"});
    points.push_back({{"strategy", m.strategy},
                      {"nodes", m.cluster.nodes},
                      {"nic_gbps", m.cluster.nic_gbps},
                      {"measured_iteration_s", measured_s},
                      {"measured_mean_iteration_s", m.iteration_s},
                      {"measured_spread_s", spread_s(m)},
                      {"measured_min_iteration_s", *lo},
                      {"measured_max_iteration_s", *hi},
                      {"within_measured_range", inside},
                      {"measured_iteration_end_s", m.iteration_end_s},
                      {"predicted_iteration_s", p.iteration_s},
                      {"error", err}});
  }
  std::vector<double> sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.empty() ? 0
                        : sorted.size() % 2 ? sorted[sorted.size() / 2]
                                            : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  double mean = 0;
  for (double e : errors) mean += e / double(errors.size());

  std::cout << "validate " << s.name << ": live (" << (settings.netns ? "tc-shaped namespaces" : "loopback")
            << ", network scale " << g4(settings.network_scale)
            << (settings.time_dilation == 0  ? ", time dilated by nodes / cores"
                : settings.time_dilation > 1 ? ", time dilated " + g4(settings.time_dilation) + "x"
                                           : std::string())
            << ") against simgrid on the same plan\n\n";
  t.print(std::cout);
  std::cout << "\n" << counted(long(errors.size()), "point") << ": |error| median " << fixed(100 * median, 1) << "%, mean "
            << fixed(100 * mean, 1) << "%, worst " << fixed(100 * worst, 1) << "% (" << worst_where << "); "
            << in_range << " of " << errors.size() << " predictions within the live run's own range\n"
            << "live s/iter: the median of the live iterations after the first; +-: their standard deviation;"
               " mean: their mean; live range: the fastest and slowest of them (*: the prediction lies outside);"
               " error = simgrid / live - 1\n";
  if (!json_out.empty())
    write_file_atomic(json_out, nlohmann::json{{"scenario", s.name},
                                               {"scenario_path", s.path},
                                               {"network_scale", settings.network_scale},
                                               {"time_dilation", settings.time_dilation},
                                               {"links", settings.netns ? "netns" : "loopback"},
                                               {"points", points},
                                               {"median_abs_error", median},
                                               {"mean_abs_error", mean},
                                               {"worst_abs_error", worst},
                                               {"worst_point", worst_where},
                                               {"within_measured_range", in_range}}
                                                    .dump(2) +
                                        "\n",
                      "--json");
  if (tolerance > 0 && worst > tolerance) {
    std::cout << "worst error above the tolerance of " << fixed(100 * tolerance, 1) << "%\n";
    return 1;
  }
  return 0;
}

}  // namespace possim::cli
