// possim report RESULTS...: figures of results files (run or sweep) drawn by gnuplot, in a
// self-contained HTML page with each figure's PNG, script and data beside it.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/output_folder.hpp"
#include "cli/points_report.hpp"
#include "model/input/error.hpp"
#include "model/input/scenario.hpp"
#include "report/gnuplot.hpp"
#include "report/html.hpp"

namespace possim::cli {

int cmd_report(const std::vector<std::string>& args) {
  handle_interrupts();  // gnuplot runs as a tracked child; the folder goes on an interrupt
  po::options_description desc("options");
  std::vector<std::string> results, measured;
  std::string out_dir, title;
  int max_figures = 16, batch = 32;
  bool quiet = false;
  desc.add_options()("results", po::value(&results)->required()->multitoken(),
                     "results.json files of possim run or possim sweep")(
      "measured", po::value(&measured)->multitoken(),
      "measured points (CSV or JSON, as possim validate reads) to draw beside the predictions")(
      "batch", po::value(&batch)->default_value(batch), "batch per GPU of measured points that give none")(
      "out", po::value(&out_dir), "folder for index.html and the figures (default reports/generated/NAME)")(
      "title", po::value(&title), "the page's title (default: possim report: NAME)")(
      "max-figures", po::value(&max_figures)->default_value(max_figures), "figures of each kind, at most")(
      "quiet,q", po::bool_switch(&quiet), "print nothing");
  po::positional_options_description pos;
  pos.add("results", -1);
  po::variables_map vm;
  if (!parse("report", args, desc, pos, vm, "RESULTS.json... [--measured FILE...] [--out DIR]")) return 0;
  if (max_figures < 1 || max_figures > 100)
    throw InputError("--max-figures", "", std::to_string(max_figures) + " is out of range", "an integer in [1, 100]");
  if (batch < 1 || batch > 65536)
    throw InputError("--batch", "", std::to_string(batch) + " is not a batch size", "an integer in [1, 65536]");

  report::ReportInputs in = report::read_report_inputs(results);
  if (!measured.empty()) in.measured = load_measurement_files(measured, batch);
  const std::string name = in.files.empty() || !safe_name(in.files.front().name) ? "report" : in.files.front().name;
  if (!vm.count("out")) out_dir = "reports/generated/" + name;  // --out '' is refused as empty
  if (title.empty()) title = "possim report: " + name;
  OutputFolder out(out_dir, vm.count("out") ? "--out" : "report folder");

  report::FigureSet set;
  const std::size_t max = std::size_t(max_figures);
  report::add_scaling_figures(in, max, set);
  report::add_traffic_figures(in, max, set);
  report::add_layer_figures(in, max, set);
  report::add_breakdown_figures(in, max, set);
  report::add_min_bandwidth_figures(in, max, set);
  const auto matches = report::match_measured(in);
  report::add_measured_figure(in, matches, set);
  std::vector<report::RenderedFigure> rendered;
  for (const auto& f : set.figures) rendered.push_back({&f, report::render(f, out.temp_path())});
  out.write("index.html", report::report_html(title, in, rendered, matches, set.notes));
  out.commit();
  if (!quiet)
    std::cout << "wrote " << out_dir << "/index.html: " << rendered.size()
              << " figures (SVG inline; PNG, gnuplot script and data beside it)\n";
  return 0;
}

}  // namespace possim::cli
