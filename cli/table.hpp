// A plain-text table for people: right-aligned numbers, left-aligned words.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "model/input/text.hpp"

namespace possim::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void separator() { rows_.push_back({}); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Four significant digits (%.4g): parameters and residuals of any magnitude.
std::string g4(double x);
using possim::fixed;    // model/input/text.hpp: "%.*f", never "-0.0"
using possim::percent;  // model/input/text.hpp: "97.8%"
using possim::si;       // model/input/text.hpp: 1.23 G{unit}

}  // namespace possim::cli
