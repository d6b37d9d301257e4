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
// erf, from scripts/fit_vector_math.py (Lawson-weighted least squares, minimax in the error
// of erf): erf(x) = x + x Q(x^2) on |x| < 0.6 (relative error 8e-9), erfc(x) = 2^-G(|x|) on
// [0.6, 3.92] (erf off by at most 4e-9); 2^r on |r| <= 1/2 (relative error 2e-9).
// Lowest degree first.
constexpr double kErfSmall[] = {0.12837915790261897, -0.37612512603472442, 0.11280991647864791,
                                -0.026646982901314144, 0.0045123532120065852};
constexpr double kErfcLog2[] = {-3.8024432630750628e-05, 1.6283182860220144, 0.91667721806253011,
                                0.15237178141042348, -0.033318598850017818, 0.004724858650469203,
                                -0.00031884141491834457};
constexpr double kExp2[] = {1.0000000005543823, 0.69314720573652544, 0.24022646889006791,
                            0.05550328778159043, 0.0096184891332636302, 0.0013399930835789079,
                            0.00015345764616726674};

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
  // Horner in float: coefficients lowest first.
  template <size_t N>
  llvm::Value* poly(llvm::Value* x, const double (&lowest_first)[N]) const {
    llvm::Value* acc = c(lowest_first[N - 1]);
    for (size_t i = N - 1; i-- > 0;) acc = fma(acc, x, c(lowest_first[i]));
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
  // One pass, no division: both pieces are short polynomials; about 30 vector operations.
  Math m(b, x);
  llvm::Value* ax = m.unary(llvm::Intrinsic::fabs, x);
  llvm::Value* small = m.fma(x, m.poly(b.CreateFMul(x, x), kErfSmall), x);
  // erfc(a) = 2^-g = 2^(n - g) 2^-n, n = rint(g); n - g is exact. Past 3.92 erf rounds to 1.
  // select, not minnum: one instruction on x86 (a NaN lane gets 3.92, and is not taken below).
  llvm::Value* a = b.CreateSelect(b.CreateFCmpOLT(ax, m.c(3.92)), ax, m.c(3.92));
  llvm::Value* g = m.poly(a, kErfcLog2);
  llvm::Value* n = m.unary(llvm::Intrinsic::rint, g);
  llvm::Value* p = m.poly(b.CreateFSub(n, g), kExp2);
  llvm::Value* scale = b.CreateBitCast(b.CreateShl(b.CreateSub(m.ci(127), b.CreateFPToSI(n, m.itype)), m.ci(23)),
                                       m.type);  // 2^-n, n <= 26
  llvm::Value* large = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign,
                                               b.CreateFSub(m.c(1.0), b.CreateFMul(p, scale)), x);
  // NaN compares false and takes the small piece, which is NaN.
  return b.CreateSelect(b.CreateFCmpOGE(ax, m.c(0.6)), large, small);
}

}  // namespace tessera::runtime::vector_math
