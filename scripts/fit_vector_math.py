#!/usr/bin/env python3
"""Derives the Chebyshev coefficients runtime/llvm/vector_math.cc uses for tanh and erf.

Each table interpolates a smooth function at the Chebyshev points of its interval, mapped to
t in [-1, 1], and is evaluated with Clenshaw's recurrence:
  kTanhSmall: tanh(x)/x as a function of z = x^2 on [0, 0.625^2]   (|x| < 0.625)
  kErfSmall:  erf(x)/x  as a function of z = x^2 on [0, 1]         (|x| < 1)
  kErfcx:     erfc(x)*exp(x^2) as a function of u = 1/x on [1/4, 1] (1 <= |x| < 4)
Plain Python; prints the C++ arrays to paste. Run: python3 scripts/fit_vector_math.py
"""
import math

def erfcx_of_u(u):
    x = 1.0 / u
    return math.erfc(x) * math.exp(x * x)


def tanh_over_x(z):
    x = math.sqrt(z)
    return math.tanh(x) / x if x > 0 else 1.0


def erf_over_x(z):
    x = math.sqrt(z)
    return math.erf(x) / x if x > 0 else 2 / math.sqrt(math.pi)


TABLES = [("kTanhSmall", tanh_over_x, 0.0, 0.625 ** 2, 9),
          ("kErfSmall", erf_over_x, 0.0, 1.0, 10),
          ("kErfcx", erfcx_of_u, 0.25, 1.0, 16)]


def chebyshev_interpolate(f, degree):
    """Coefficients c_k of sum c_k T_k(t) interpolating f at the Chebyshev points."""
    n = degree + 1
    nodes = [math.cos(math.pi * (j + 0.5) / n) for j in range(n)]
    values = [f(t) for t in nodes]
    return [(1 if k == 0 else 2) / n * sum(values[j] * math.cos(math.pi * k * (j + 0.5) / n) for j in range(n))
            for k in range(n)]


def clenshaw(coeffs, t):
    b1 = b2 = 0.0
    for c in reversed(coeffs[1:]):
        b1, b2 = 2 * t * b1 - b2 + c, b1
    return t * b1 - b2 + coeffs[0]


def main():
    for name, g, lo, hi, degree in TABLES:
        f = lambda t: g(lo + (hi - lo) * (t + 1) / 2)
        coeffs = chebyshev_interpolate(f, degree)
        ts = [-1 + 2 * i / 20000 for i in range(20001)]
        err = max(abs(clenshaw(coeffs, t) - f(t)) / abs(f(t)) for t in ts)
        print(f"// on [{lo}, {hi}], degree {degree}: max relative error {err:.1e} (in double)")
        print(f"constexpr double {name}[] = {{" + ", ".join(f"{c:.17g}" for c in coeffs) + "};")


if __name__ == "__main__":
    main()
