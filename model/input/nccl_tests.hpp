// The output of NCCL-tests' all_reduce_perf (github.com/NVIDIA/nccl-tests), as it prints
// it: the collective microbenchmark every GPU cluster is checked with, read so that possim's
// predicted collective can be set beside a measured one (`possim collective --compare`).
// Lines starting with '#' are its comments (the rank table, the column heads); the others
// are rows: size count type redop root time algbw busbw #wrong, then the in-place
// time algbw busbw #wrong. Only the out-of-place time is used; the rest is checked against
// it, so a hand-edited row is caught rather than compared.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/input/numerics.hpp"

namespace possim {

struct NcclTestsRow {
  int line = 0;             // in the file, from 1
  double bytes = 0;         // "size": the buffer all-reduced, bytes
  long long count = 0;      // elements
  std::string type;         // float, half, bfloat16, double, ...
  double time_s = 0;        // out-of-place, per all-reduce
  double busbw_bytes_per_s = 0;  // as printed (GB/s x 1e9)
};

struct NcclTestsFile {
  std::string path;
  int ranks = 0;  // the "#  Rank N ..." lines: GPUs taking part
  std::vector<NcclTestsRow> rows;
};

// Throws InputError naming the file, the line and the field for anything else: a file that
// is not all_reduce_perf's output (the command or the "Collective test starting" line must
// name it), a row whose fields do not parse, whose size is not count x the type's bytes,
// whose bandwidths disagree with its time, or a file with no rank list or no row.
NcclTestsFile parse_nccl_tests(const std::string& text, const std::string& where);
NcclTestsFile load_nccl_tests(const std::string& path);

// NCCL-tests' bus-bandwidth factor of an all-reduce over n ranks: 2(n-1)/n (its
// doc/PERFORMANCE.md), the share of the buffer each rank's busiest link carries.
double allreduce_bus_factor(int ranks);

// The gradient dtype an all_reduce_perf type is (float, half, bfloat16), nothing for one
// gradients do not travel in; and the type name all_reduce_perf prints for a dtype.
std::optional<DType> gradient_dtype_of(const std::string& nccl_type);
const char* nccl_type_of(DType d);

}  // namespace possim
