// Inline exp, log, tanh and erf in LLVM IR (see vector_math.h).
#include "runtime/llvm/vector_math.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <limits>
#include <vector>

namespace tessera::runtime::vector_math {
namespace {

// Chebyshev coefficients from scripts/fit_vector_math.py, truncated where the terms fall
// below float precision.
constexpr double kTanhSmall[] = {0.94164189462682202, -0.05624549753066943, 0.0020351394860806285,
                                 -7.4623827299591389e-05, 2.7400661159804333e-06,
                                 -1.0062662512133614e-07, 3.6954957760571006e-09};
constexpr double kTanhSmallZMax = 0.625 * 0.625;
constexpr double kErfSmall[] = {0.97547693938265412, -0.14226120510371343, 0.010035582187599418,
                                -0.00057687646997656671, 2.7419931252134237e-05,
                                -1.1043175509998933e-06, 3.8488755596785301e-08,
                                -1.1808586431915171e-09};
constexpr double kErfcx[] = {0.29404210296365352, 0.14485638147754071, -0.011834441958428,
                             0.00046025841298548339, 8.017337860005691e-05, -2.4291552362131337e-05,
                             3.7078471878621991e-06, -3.0454400520361997e-07, -2.1712168040601568e-08,
                             1.4908572987248903e-08, -3.5825205971719207e-09, 5.6866324721023131e-10,
                             -4.9584605212609994e-11};

// IR helpers over a float scalar or vector type.
struct Math {
  llvm::IRBuilderBase& b;
  llvm::Type* type;   // float or <N x float>
  llvm::Type* itype;  // i32 or <N x i32>

  Math(llvm::IRBuilderBase& builder, llvm::Value* x) : b(builder), type(x->getType()) {
    itype = type->isVectorTy() ? llvm::VectorType::getInteger(llvm::cast<llvm::VectorType>(type))
                               : static_cast<llvm::Type*>(b.getInt32Ty());
  }
  llvm::Value* c(double v) const { return llvm::ConstantFP::get(type, v); }
  llvm::Value* ci(int32_t v) const { return llvm::ConstantInt::get(itype, static_cast<uint64_t>(v), true); }
  llvm::Value* fma(llvm::Value* a, llvm::Value* m, llvm::Value* add) const {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a, m, add});
  }
  llvm::Value* unary(llvm::Intrinsic::ID id, llvm::Value* v) const { return b.CreateUnaryIntrinsic(id, v); }
  llvm::Value* min(llvm::Value* a, llvm::Value* v) const { return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, v); }
  llvm::Value* max(llvm::Value* a, llvm::Value* v) const { return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, v); }
  llvm::Value* is_nan(llvm::Value* v) const { return b.CreateFCmpUNO(v, v); }
  // Horner in float: coefficients highest first.
  llvm::Value* horner(llvm::Value* x, const std::vector<double>& highest_first) const {
    llvm::Value* acc = c(highest_first[0]);
    for (size_t i = 1; i < highest_first.size(); ++i) acc = fma(acc, x, c(highest_first[i]));
    return acc;
  }
  // sum coeffs[k] T_k(t) by Clenshaw's recurrence.
  template <size_t N>
  llvm::Value* chebyshev(llvm::Value* t, const double (&coeffs)[N]) const {
    llvm::Value* t2 = b.CreateFAdd(t, t);
    llvm::Value* b1 = c(0);
    llvm::Value* b2 = c(0);
    for (size_t k = N - 1; k >= 1; --k) {
      llvm::Value* b0 = fma(t2, b1, b.CreateFSub(c(coeffs[k]), b2));
      b2 = b1;
      b1 = b0;
    }
    return fma(t, b1, b.CreateFSub(c(coeffs[0]), b2));
  }
  // 2^n for integer n in [-126, 127], as a float.
  llvm::Value* pow2(llvm::Value* n) const {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(n, ci(127)), ci(23)), type);
  }
};

}  // namespace

llvm::Value* exp(llvm::IRBuilderBase& b, llvm::Value* x) {
  Math m(b, x);
  // Past 88.8 the result overflows, below -104 it is under half the smallest subnormal.
  llvm::Value* xc = m.min(m.max(x, m.c(-104.0)), m.c(88.8));
  llvm::Value* n = m.unary(llvm::Intrinsic::rint, b.CreateFMul(xc, m.c(M_LOG2E)));
  // r = x - n ln2 with ln2 in two parts (the high part has trailing zero bits: n ln2_hi is exact).
  llvm::Value* r = m.fma(n, m.c(-0.693145751953125), xc);
  r = m.fma(n, m.c(-1.428606765330187045e-06), r);
  llvm::Value* p = m.horner(r, {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0});
  llvm::Value* ni = b.CreateFPToSI(n, m.itype);
  llvm::Value* n1 = b.CreateAShr(ni, m.ci(1));
  llvm::Value* n2 = b.CreateSub(ni, n1);
  llvm::Value* y = b.CreateFMul(b.CreateFMul(p, m.pow2(n1)), m.pow2(n2));
  return b.CreateSelect(m.is_nan(x), x, y);
}

llvm::Value* log(llvm::IRBuilderBase& b, llvm::Value* x) {
  Math m(b, x);
  const double min_normal = std::numeric_limits<float>::min();
  llvm::Value* subnormal = b.CreateFCmpOLT(x, m.c(min_normal));
  llvm::Value* xs = b.CreateSelect(subnormal, b.CreateFMul(x, m.c(8388608.0)), x);
  llvm::Value* bits = b.CreateBitCast(xs, m.itype);
  llvm::Value* e = b.CreateSub(b.CreateAnd(b.CreateLShr(bits, m.ci(23)), m.ci(0xff)), m.ci(127));
  e = b.CreateSub(e, b.CreateSelect(subnormal, m.ci(23), m.ci(0)));
  llvm::Value* mant =
      b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, m.ci(0x007fffff)), m.ci(0x3f800000)), m.type);
  llvm::Value* high = b.CreateFCmpOGT(mant, m.c(M_SQRT2));
  mant = b.CreateSelect(high, b.CreateFMul(mant, m.c(0.5)), mant);
  e = b.CreateAdd(e, b.CreateZExt(high, m.itype));
  llvm::Value* f = b.CreateFSub(mant, m.c(1.0));
  llvm::Value* s = b.CreateFDiv(f, b.CreateFAdd(mant, m.c(1.0)));
  llvm::Value* z = b.CreateFMul(s, s);
  llvm::Value* series = b.CreateFMul(z, m.horner(z, {1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3}));
  // log m = 2s (1 + series) = f - s (f - 2 series): f is exact, the rounded part is small.
  llvm::Value* log_m = m.fma(b.CreateFNeg(s), b.CreateFSub(f, b.CreateFAdd(series, series)), f);
  llvm::Value* ef = b.CreateSIToFP(e, m.type);
  llvm::Value* y = m.fma(ef, m.c(0.693145751953125), m.fma(ef, m.c(1.428606765330187045e-06), log_m));
  const double inf = std::numeric_limits<double>::infinity();
  y = b.CreateSelect(b.CreateFCmpOEQ(x, m.c(inf)), x, y);
  y = b.CreateSelect(b.CreateFCmpOEQ(x, m.c(0.0)), m.c(-inf), y);
  return b.CreateSelect(b.CreateFCmpULT(x, m.c(0.0)), m.c(std::nan("")), y);
}

llvm::Value* tanh(llvm::IRBuilderBase& b, llvm::Value* x) {
  Math m(b, x);
  llvm::Value* ax = m.unary(llvm::Intrinsic::fabs, x);
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* t = m.fma(z, m.c(2.0 / kTanhSmallZMax), m.c(-1.0));
  llvm::Value* small = b.CreateFMul(x, m.chebyshev(t, kTanhSmall));
  llvm::Value* e = exp(b, b.CreateFAdd(m.min(ax, m.c(9.0)), m.min(ax, m.c(9.0))));
  llvm::Value* large = b.CreateFSub(m.c(1.0), b.CreateFDiv(m.c(2.0), b.CreateFAdd(e, m.c(1.0))));
  large = b.CreateSelect(b.CreateFCmpOGE(ax, m.c(9.0)), m.c(1.0), large);
  large = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
  llvm::Value* y = b.CreateSelect(b.CreateFCmpOLT(ax, m.c(0.625)), small, large);
  return b.CreateSelect(m.is_nan(x), x, y);
}

llvm::Value* erf(llvm::IRBuilderBase& b, llvm::Value* x) {
  Math m(b, x);
  llvm::Value* ax = m.unary(llvm::Intrinsic::fabs, x);
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* small = b.CreateFMul(x, m.chebyshev(m.fma(z, m.c(2.0), m.c(-1.0)), kErfSmall));
  // 1 <= |x| < 4: erf = 1 - exp(-x^2) erfcx(|x|), with x^2 = hi + lo exactly.
  llvm::Value* a = m.min(m.max(ax, m.c(1.0)), m.c(4.0));
  llvm::Value* hi = b.CreateFMul(a, a);
  llvm::Value* lo = m.fma(a, a, b.CreateFNeg(hi));
  llvm::Value* e = b.CreateFMul(exp(b, b.CreateFNeg(hi)), b.CreateFSub(m.c(1.0), lo));
  llvm::Value* u = b.CreateFDiv(m.c(1.0), a);
  llvm::Value* t = m.fma(u, m.c(8.0 / 3.0), m.c(-5.0 / 3.0));  // [1/4, 1] -> [-1, 1]
  llvm::Value* large = b.CreateFSub(m.c(1.0), b.CreateFMul(e, m.chebyshev(t, kErfcx)));
  large = b.CreateSelect(b.CreateFCmpOGE(ax, m.c(4.0)), m.c(1.0), large);
  large = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
  llvm::Value* y = b.CreateSelect(b.CreateFCmpOLT(ax, m.c(1.0)), small, large);
  return b.CreateSelect(m.is_nan(x), x, y);
}

}  // namespace tessera::runtime::vector_math
