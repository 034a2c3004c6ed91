// When a fit is poor, for every fit whose numbers possim writes into a profile: the cluster
// fit (calibrate fit), the exchange's lines (calibrate exchange) and the host<->device copy
// line (calibrate kernels). A poor fit's numbers describe the fit's failure, not the
// machine, so the commands print why and refuse to write them (exit 3, kPoorFitExit in
// cli/commands.hpp) unless --accept-poor-fit says to, and then the sources say so.
#pragma once
#include <string>
#include <vector>

#include "calibrate/cluster_fit.hpp"
#include "calibrate/line_fit.hpp"

namespace possim::calibrate {

namespace exchange {
struct ExchangeResult;
}
struct KernelCalibration;

// The cluster fit's residuals are relative (predicted / measured - 1). Repeated runs of one
// cluster scatter by a few percent, and the shipped refit of section 9's eleven network
// points (traces/measured/refit_titanx.sh) ends at 6.7% RMS; above 10% the model misses the
// points by more than any scatter explains (points that contradict each other, or a
// mechanism the model lacks), and the fitted values absorb that miss.
inline constexpr double kMaxRmsRelativeResidual = 0.10;
// A line seconds = fixed + bytes / bandwidth: below R^2 0.9 it leaves more than a tenth of
// the times' variance unexplained (the same 10% as above), so its slope is not the path's
// bandwidth.
inline constexpr double kMinLineR2 = 0.9;
// A fixed cost cannot be negative; an intercept below 0 by more than this many standard
// errors is the line's shape failing (times growing faster than bytes), not noise.
inline constexpr double kNegativeInterceptSigmas = 2.0;

struct FitVerdict {
  std::vector<std::string> problems;  // each names what is poor and why
  bool poor() const { return !problems.empty(); }
  std::string summary() const;  // the problems joined by "; ", at most ~600 characters
};

// Poor: RMS relative residual above kMaxRmsRelativeResidual, or a parameter stuck at the end
// of its range where the mechanism would be impossible (a rate at its slowest, a cost at its
// largest, tcp_goodput or compute_scale at either end). The other end (a cost at its
// smallest, a rate at its fastest) means the points find no cost there: undetermined, which
// the fit already reports, not poor.
FitVerdict judge_cluster_fit(const ClusterFit& f);

// A line's problems added to v under `what` ("path push"): R^2 below kMinLineR2, an
// intercept significantly negative unless `negative_intercept_explained`.
void judge_line(const LineFit& f, const std::string& what, bool negative_intercept_explained, FitVerdict& v);

// Every path's line and the pooled one. Under tc (netns) a negative intercept is real:
// each message's first bytes leave at the veth's own speed, before the token bucket.
FitVerdict judge_exchange(const exchange::ExchangeResult& r);

// The pinned copy line, only where it goes into the profile (copies that cross a bus);
// its intercept is never negative (fit_line_nonnegative), so R^2 is what is judged.
FitVerdict judge_copy_fit(const KernelCalibration& c);

// y = a + b x with a >= 0: the least-squares line, or where its intercept is negative the
// line through the origin (slope refitted), with clamped_intercept the free line's.
LineFit fit_line_nonnegative(const std::vector<double>& x, const std::vector<double>& y);

// A source's note that its fit was written although poor (--accept-poor-fit).
std::string accepted_poor_note(const FitVerdict& v);

}  // namespace possim::calibrate
