// Welch's unequal-variances t-test, one-sided: is the mean of `a` smaller than that of `b`?
// Droplet search accepts a new best only when the repeat costs say so with p <= 0.05.
#pragma once

#include <vector>

namespace tessera::agents {

// p-value of H1: mean(a) < mean(b). Needs at least two samples on each side (else 1).
double welch_p_less(const std::vector<double>& a, const std::vector<double>& b);

// The regularized incomplete beta function I_x(a, b) (for the t distribution's tail).
double regularized_incomplete_beta(double a, double b, double x);

}  // namespace tessera::agents
