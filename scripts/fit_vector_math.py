#!/usr/bin/env python3
"""Derives the coefficient tables runtime/llvm/vector_math.cc uses for tanh and erf.

kTanhSmall interpolates tanh(x)/x as a function of z = x^2 on [0, 0.625^2] (|x| < 0.625) at the
Chebyshev points of its interval, mapped to t in [-1, 1], evaluated with Clenshaw's recurrence.

The erf tables are monomial (Horner, lowest degree first), fitted by least squares with
Lawson's reweighting towards the minimax error of what the kernel computes:
  kErfSmall:  (erf(x)/x - 1) as a polynomial in z = x^2 on [0, 0.36]   (|x| < 0.6; erf = x + x Q)
  kErfcLog2:  -log2(erfc(x)) as a polynomial in x on [0.6, 3.92], the error weighted by erfc(x)
              (so it is the error of erf = 1 - 2^-G)
  kExp2:      2^r on [-1/2, 1/2], relative error
Plain Python; prints the C++ arrays to paste. Run: python3 scripts/fit_vector_math.py
"""
import math


def tanh_over_x(z):
    x = math.sqrt(z)
    return math.tanh(x) / x if x > 0 else 1.0


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


def least_squares(rows, rhs):
    """min |A c - b| by Householder QR on column-scaled A."""
    m, n = len(rows), len(rows[0])
    scale = [max(abs(r[j]) for r in rows) or 1.0 for j in range(n)]
    a = [[r[j] / scale[j] for j in range(n)] for r in rows]
    b = list(rhs)
    for k in range(n):
        norm = math.sqrt(sum(a[i][k] ** 2 for i in range(k, m)))
        alpha = -norm if a[k][k] > 0 else norm
        v = [0.0] * m
        for i in range(k, m):
            v[i] = a[i][k]
        v[k] -= alpha
        vv = sum(v[i] ** 2 for i in range(k, m))
        if vv == 0:
            continue
        for j in range(k, n):
            d = 2 * sum(v[i] * a[i][j] for i in range(k, m)) / vv
            for i in range(k, m):
                a[i][j] -= d * v[i]
        d = 2 * sum(v[i] * b[i] for i in range(k, m)) / vv
        for i in range(k, m):
            b[i] -= d * v[i]
    c = [0.0] * n
    for k in reversed(range(n)):
        c[k] = (b[k] - sum(a[k][j] * c[j] for j in range(k + 1, n))) / a[k][k]
    return [c[j] / scale[j] for j in range(n)]


def lawson_fit(f, weight, lo, hi, degree, points=1500, rounds=30):
    """Monomial coefficients (lowest first) minimizing max |weight(v) (p(v) - f(v))| on [lo, hi]."""
    vs = [lo + (hi - lo) * (1 + math.cos(math.pi * (i + 0.5) / points)) / 2 for i in range(points)]
    fs = [f(v) for v in vs]
    ws = [weight(v) for v in vs]
    lw = [1.0] * points
    best, best_err = None, math.inf
    for _ in range(rounds):
        rows = [[lw[i] * ws[i] * vs[i] ** k for k in range(degree + 1)] for i in range(points)]
        c = least_squares(rows, [lw[i] * ws[i] * fs[i] for i in range(points)])
        errs = [abs(ws[i] * (sum(ck * vs[i] ** k for k, ck in enumerate(c)) - fs[i])) for i in range(points)]
        worst = max(errs)
        if worst < best_err:
            best, best_err = c, worst
        lw = [w * ((e / worst) ** 0.3 + 1e-3) for w, e in zip(lw, errs)]
        total = sum(lw)
        lw = [w * points / total for w in lw]
    return best, best_err


def main():
    f = lambda t: tanh_over_x(0.625 ** 2 * (t + 1) / 2)
    coeffs = chebyshev_interpolate(f, 9)
    err = max(abs(clenshaw(coeffs, t) - f(t)) / abs(f(t)) for t in [-1 + 2 * i / 20000 for i in range(20001)])
    print(f"// tanh(x)/x on z in [0, 0.625^2], degree 9: max relative error {err:.1e} (in double)")
    print("constexpr double kTanhSmall[] = {" + ", ".join(f"{c:.17g}" for c in coeffs) + "};")
    erf_q = lambda z: math.erf(math.sqrt(z)) / math.sqrt(z) - 1 if z > 0 else 2 / math.sqrt(math.pi) - 1
    tables = [("kErfSmall", erf_q, lambda z: 1 / (1 + erf_q(z)), 0.0, 0.36, 4),
              ("kErfcLog2", lambda x: -math.log2(math.erfc(x)), lambda x: math.erfc(x) * math.log(2), 0.6, 3.92, 6),
              ("kExp2", lambda r: 2.0 ** r, lambda r: 2.0 ** -r, -0.5, 0.5, 6)]
    for name, fn, weight, lo, hi, degree in tables:
        coeffs, err = lawson_fit(fn, weight, lo, hi, degree)
        print(f"// on [{lo}, {hi}], degree {degree}: max weighted error {err:.1e} (in double)")
        print(f"constexpr double {name}[] = {{" + ", ".join(f"{c:.17g}" for c in coeffs) + "};")


if __name__ == "__main__":
    main()
