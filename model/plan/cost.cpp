#include "model/plan/cost.hpp"

namespace possim {
namespace table1 {

double ps_server(double m, double n, double p1, double p2) { return 2 * p1 * m * n / p2; }
double ps_worker(double m, double n) { return 2 * m * n; }
double ps_colocated(double m, double n, double p1, double p2) {
  return 2 * m * n * (p1 + p2 - 2) / p2;
}
double sfb_worker(double m, double n, double p1, double k) { return 2 * k * (p1 - 1) * (m + n); }
double adam_server(double m, double n, double p1, double k) {
  return p1 * m * n + p1 * k * (m + n);
}
double adam_worker(double m, double n, double k) { return k * (m + n) + m * n; }
double adam_colocated(double m, double n, double p1, double k) {
  return (p1 - 1) * (m * n + k * m + k * n);
}

}  // namespace table1

const char* to_string(Scheme s) {
  switch (s) {
    case Scheme::ps: return "ps";
    case Scheme::sfb: return "sfb";
    case Scheme::adam: return "adam";
  }
  return "?";
}

Scheme best_scheme_atc17(const Layer& l, int p1, int p2, int k, double w) {
  if (l.kind != LayerKind::fc || p1 < 2) return Scheme::ps;
  const double m = double(l.fc_m), n = double(l.fc_n);
  return table1::sfb_worker(m, n, p1, k) * w <= table1::ps_colocated(m, n, p1, p2) ? Scheme::sfb
                                                                                   : Scheme::ps;
}

Scheme best_scheme_sacp16(const Layer& l, int p1, int k, double w) {
  if (l.kind != LayerKind::fc || p1 < 2) return Scheme::ps;
  const double m = double(l.fc_m), n = double(l.fc_n);
  const double broadcast = (p1 - 1.0) * 2 * k * (m + n) * w;
  const double centralized = p1 * double(k) * (m + n) * w + p1 * m * n;
  return broadcast <= centralized ? Scheme::sfb : Scheme::adam;
}

}  // namespace possim
