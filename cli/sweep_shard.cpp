#include "cli/sweep_shard.hpp"

#include <cstdlib>

#include "model/input/error.hpp"
#include "model/input/limits.hpp"

namespace possim::cli {

namespace {

// A whole decimal number in [lo, hi], or nothing.
std::optional<long long> whole_number(const std::string& s, long long lo, long long hi) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return {};
  const long long v = std::atoll(s.c_str());
  if (v < lo || v > hi) return {};
  return v;
}

}  // namespace

std::string Shard::folder_name() const {
  return "shard-" + std::to_string(index) + "-of-" + std::to_string(count);
}

Shard parse_shard(const std::string& text) {
  const long long max = (long long)limits::kMaxSweepPoints;
  const std::string expected = "i/n: shard i of n, 0 <= i < n <= " + std::to_string(max);
  const auto slash = text.find('/');
  const auto count = slash == std::string::npos ? std::nullopt : whole_number(text.substr(slash + 1), 1, max);
  const auto index = slash == std::string::npos ? std::nullopt : whole_number(text.substr(0, slash), 0, max - 1);
  if (!count || !index || *index >= *count)
    throw InputError("--shard", "", "'" + text.substr(0, 32) + "' is not a shard", expected);
  Shard s;
  s.index = int(*index);
  s.count = int(*count);
  return s;
}

std::optional<Shard> mpi_shard() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!rank || !size) return {};
  const long long max = limits::kMaxNodes;
  const auto n = whole_number(size, 1, max);
  const auto r = whole_number(rank, 0, max - 1);
  if (!n || !r || *r >= *n)
    throw InputError("mpirun", "", std::string("OMPI_COMM_WORLD_RANK=") + std::string(rank).substr(0, 16) +
                                       " and OMPI_COMM_WORLD_SIZE=" + std::string(size).substr(0, 16) +
                                       " are not a rank and a size",
                     "0 <= rank < size");
  Shard s;
  s.index = int(*r);
  s.count = int(*n);
  s.mpi = true;
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (const auto l = whole_number(local ? local : "", 1, max)) s.local_ranks = int(*l);
  return s;
}

}  // namespace possim::cli
