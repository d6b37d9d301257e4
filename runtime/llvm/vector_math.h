// Inline float math for generated kernels: exp, log, tanh and erf as LLVM IR for a scalar or a
// vector of any width, so a vectorized loop stays vectorized (no per-lane libm calls).
//
// Each is range reduction plus a polynomial evaluated in float with FMA:
//   exp  x = n ln2 + r, |r| <= ln2/2; Taylor to r^7; 2^n applied in two halves so results that
//        underflow to subnormals round once. Max error 1 ulp (test: vector_math_test.cc).
//   log  x = m 2^e, m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m-1)/(m+1), series to
//        s^11, summed as f - s (f - 2 series) with f = m - 1 exact; subnormal inputs scaled by
//        2^23 first. Max error 1 ulp.
//   tanh |x| < 0.625: x * P(x^2) (Chebyshev); else sign(x) (1 - 2 / (exp(2|x|) + 1)); ±1 past
//        |x| = 9. Max error 2 ulp.
//   erf  |x| < 0.6: x + x Q(x^2); else sign(x) (1 - erfc), erfc = 2^-G(min(|x|, 3.92)) with G a
//        polynomial fit of -log2 erfc and 2^-G = 2^(n - G) 2^-n, n = rint(G). Straight-line code,
//        no division: about 30 vector operations (gelu's cost). Max error 1.50 ulp (every float
//        in [1e-30, 5] against double erf, scripts/fit_vector_math.py); the test bounds it by 2.
// NaN in gives NaN out; ±inf, overflow and underflow give what libm gives. sigmoid is
// 1 / (1 + exp(-x)) and rsqrt 1 / sqrt(x) (a hardware instruction) in the op library, so they
// inherit these. The coefficient tables come from scripts/fit_vector_math.py.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace tessera::runtime::vector_math {

llvm::Value* exp(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* log(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* tanh(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* erf(llvm::IRBuilderBase& b, llvm::Value* x);

}  // namespace tessera::runtime::vector_math
