// Welch's t-test and the incomplete beta function it needs (see welch.h).
#include "agents/welch.h"

#include <cmath>

namespace tessera::agents {
namespace {

// Continued fraction for I_x(a, b) (modified Lentz), valid for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEpsilon = 1e-14;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEpsilon) break;
  }
  return h;
}

void mean_variance(const std::vector<double>& v, double* mean, double* variance) {
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  *mean = m;
  *variance = s / static_cast<double>(v.size() - 1);
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                          b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
  return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double welch_p_less(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2) return 1.0;
  double ma, va, mb, vb;
  mean_variance(a, &ma, &va);
  mean_variance(b, &mb, &vb);
  double sa = va / static_cast<double>(a.size()), sb = vb / static_cast<double>(b.size());
  if (sa + sb == 0) return ma < mb ? 0.0 : 1.0;
  double t = (mb - ma) / std::sqrt(sa + sb);
  double df = (sa + sb) * (sa + sb) /
              (sa * sa / static_cast<double>(a.size() - 1) + sb * sb / static_cast<double>(b.size() - 1));
  // One-sided tail of Student's t with df degrees of freedom.
  double tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
  return t > 0 ? tail : 1.0 - tail;
}

}  // namespace tessera::agents
