// One figure of a report: its data and the gnuplot commands that draw it, and what the page
// says about it. gnuplot.hpp turns it into id.gp, id.svg and id.png.
#pragma once
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "report/report_inputs.hpp"

namespace possim::report {

struct Figure {
  std::string id;       // file stem: "fig03-speedup"
  std::string section;  // the page's heading it goes under
  std::string title;
  std::string what;     // what it shows, for its caption
  std::string data;     // id.dat: tab-separated blocks, two blank lines apart (gnuplot's `index`)
  std::string plot;     // gnuplot settings and the plot command, reading id.dat
  int width = 760, height = 460;
  std::set<std::size_t> files;  // the results files its points came from
};

// Each kind of figure, at most `max_per_kind` of each (the page says how many more there
// would have been). Empty when the results hold nothing of the kind (e.g. one node count).
struct FigureSet {
  std::vector<Figure> figures;
  std::vector<std::string> notes;  // "12 more speedup figures left out (--max-figures)"
};

void add_scaling_figures(const ReportInputs& in, std::size_t max_per_kind, FigureSet& out);
void add_traffic_figures(const ReportInputs& in, std::size_t max_per_kind, FigureSet& out);
void add_layer_figures(const ReportInputs& in, std::size_t max_per_kind, FigureSet& out);
void add_breakdown_figures(const ReportInputs& in, std::size_t max_per_kind, FigureSet& out);
void add_min_bandwidth_figures(const ReportInputs& in, std::size_t max_per_kind, FigureSet& out);

// Measured points beside the predictions among the results for the same model, strategy,
// nodes, GPUs per node, batch and bandwidth; a point with no prediction has predicted = 0.
struct MeasuredMatch {
  const MeasurementPoint* measured = nullptr;
  const ReportPoint* predicted = nullptr;  // null: no result for this point
  double measured_images_per_s = 0, predicted_images_per_s = 0;
  double error = 0;  // predicted / measured - 1 in the unit measured (as `possim validate`)
};
std::vector<MeasuredMatch> match_measured(const ReportInputs& in);
// The error of the quantity the measured figure draws: predicted images/s / measured images/s
// - 1 (what its labels say; `error` is in the unit measured, iteration time for most points).
double images_per_s_error(const MeasuredMatch& m);
void add_measured_figure(const ReportInputs& in, const std::vector<MeasuredMatch>& matches, FigureSet& out);

// Helpers the figure makers share.
// User text (a model's name, a results file's path) crosses into gnuplot only through
// these two. gnuplot substitutes nothing inside single quotes (no `command`, no @macro),
// so a quoted string is safe once it cannot end its line.
// A string as a gnuplot single-quoted string ('' stands for '; control characters,
// line breaks included, as spaces).
std::string gp_quote(const std::string& s);
// A string for a line of a .dat file or a # comment of a script: control characters (tab
// and line breaks) as spaces, double quotes (gnuplot's column quoting) as single ones, and
// no trailing backslash (which would join the next line to this one).
std::string gp_text(const std::string& s);
// A series' label: the strategy, with the engine when the report holds several engines,
// and "[scenario]" (the results file's name) when `with_file`: when the figure holds
// several results files of one engine (several_scenarios), and only then.
std::string series_label(const ReportInputs& in, const ReportPoint& p, bool with_file);
// Whether the points a figure holds come from more than one results file of the same engine
// (so that a strategy's label needs its scenario to tell its series apart).
bool several_scenarios(const std::vector<const ReportPoint*>& points);
// The palette strategies are drawn in: 12 distinct colours (ColorBrewer's Set1 without its
// yellow, and distinct additions), one per strategy in strategy_names() order.
const std::vector<std::string>& strategy_palette();
// A fixed colour per strategy from strategy_palette(), so that a strategy looks the same in
// every figure and no two strategies share one.
std::string strategy_colour(const std::string& strategy);
// Where every figure's legend goes: above the plot area, outside it, in rows (never over the
// x label or the data).
extern const char* const kKeySetting;
// %g of a number.
std::string num(double x);
// "fig03-KIND" for the n-th (from 0) figure of a kind.
std::string figure_id(const char* kind, std::size_t n);
// Per model, its points at the largest cluster (nodes, then GPUs per node; the slowest NIC
// of those), every strategy but single.
std::map<std::string, std::vector<const ReportPoint*>> largest_cluster(const ReportInputs& in);
// "vgg19, 16 nodes x 1 GPU, 10 Gbit/s"
std::string cluster_text(const Result& r);

}  // namespace possim::report
