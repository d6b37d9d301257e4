// Inline vector math (runtime/llvm/vector_math.h): each function swept over its domain in a
// vectorized kernel and in a scalar one, against libm in double, max error in ulp within the
// bound the header documents; special values (NaN, ±inf, overflow, underflow, ±0) as libm; no
// kernel of any op in the library calls libm or an LLVM math intrinsic that becomes a call; and
// a vectorized gelu divides nowhere (its erf is straight-line, its x / sqrt(2) a multiply).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <regex>

#include "op_cases.h"
#include "runtime/kernel.h"
#include "schedule/lower.h"
#include "schedule/sketch.h"
#include "schedule/state.h"

namespace tessera::runtime {
namespace {

using schedule::CallFn;

struct Function {
  const char* name;
  CallFn fn;
  double (*reference)(double);
  double lo, hi;     // the sweep
  double max_ulp;    // the bound documented in vector_math.h
};

const Function kFunctions[] = {
    {"exp", CallFn::kExp, [](double x) { return std::exp(x); }, -110, 90, 1},
    {"log", CallFn::kLog, [](double x) { return std::log(x); }, 1e-40, 1e30, 1},
    {"tanh", CallFn::kTanh, [](double x) { return std::tanh(x); }, -12, 12, 2},
    {"erf", CallFn::kErf, [](double x) { return std::erf(x); }, -5, 5, 2},
};

// Y[i] = fn(X[i]) over n points, vectorized by 16 (or scalar), compiled and run.
std::vector<float> apply(CallFn fn, const std::vector<float>& xs, bool vectorized) {
  const int64_t n = static_cast<int64_t>(xs.size());
  auto x = schedule::placeholder("X", {n});
  auto y = schedule::compute("Y", {n}, {x}, [&](const std::vector<schedule::Expr>& i) {
    return schedule::call(fn, x(i[0]));
  });
  auto dag = schedule::ComputeDAG::make("vector_math", {x}, {y}).value();
  schedule::State state(dag);
  if (vectorized) {
    EXPECT_TRUE(state.apply(schedule::SplitStep{"Y", "i", {16}}));
    EXPECT_TRUE(state.apply(schedule::AnnotateStep{"Y", "i.1", "vectorize"}));
  }
  auto func = schedule::lower(state, "vm");
  auto kernel = compile_cpu(func.value());
  EXPECT_TRUE(kernel) << kernel.error().message;
  AlignedBuffer in(xs.size()), out(xs.size());
  std::copy(xs.begin(), xs.end(), in.data());
  EXPECT_TRUE(kernel->run({in.data(), out.data()}));
  return std::vector<float>(out.data(), out.data() + xs.size());
}

double ulp_error(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(want) || std::isinf(got)) return got == static_cast<float>(want) ? 0 : INFINITY;
  float w = static_cast<float>(want);
  double ulp = std::nextafter(std::fabs(w), INFINITY) - std::fabs(w);  // subnormal-aware
  return std::fabs(got - want) / ulp;
}

TEST(VectorMath, EachFunctionIsWithinItsUlpBoundOverItsDomain) {
  for (const Function& f : kFunctions) {
    std::vector<float> xs;
    std::mt19937 rng(1);
    const int n = 1 << 16;
    for (int i = 0; i < n; ++i) {  // a uniform grid, plus a log-uniform one for log's range
      double t = static_cast<double>(i) / (n - 1);
      xs.push_back(static_cast<float>(f.lo + (f.hi - f.lo) * t));
      if (f.fn == CallFn::kLog) xs.back() = static_cast<float>(std::exp(std::log(f.lo) + (std::log(f.hi) - std::log(f.lo)) * t));
    }
    for (int i = 0; i < 4096; ++i) xs.push_back(std::uniform_real_distribution<float>(-1.5f, 1.5f)(rng));
    while (xs.size() % 16) xs.push_back(0.5f);
    for (bool vectorized : {true, false}) {
      auto ys = apply(f.fn, xs, vectorized);
      double worst = 0;
      float worst_x = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        double e = ulp_error(ys[i], f.reference(xs[i]));
        if (e > worst) worst = e, worst_x = xs[i];
      }
      std::printf("%-5s %s: max error %.2f ulp (at x = %.9g)\n", f.name, vectorized ? "vector" : "scalar", worst, worst_x);
      EXPECT_LE(worst, f.max_ulp) << f.name << (vectorized ? " vector" : " scalar") << " at x = " << worst_x;
    }
  }
}

TEST(VectorMath, SpecialValuesAreLibms) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs = {nan, inf, -inf, 0.0f, -0.0f, 88.7f, 89.0f, -87.0f, -100.0f, -104.5f, 1e-45f,
                           1e-39f, -1.0f, 1.0f, 3.9f, 4.0f, 9.5f, -20.0f};
  while (xs.size() % 16) xs.push_back(1.0f);
  for (const Function& f : kFunctions) {
    for (bool vectorized : {true, false}) {
      auto ys = apply(f.fn, xs, vectorized);
      for (size_t i = 0; i < xs.size(); ++i) {
        double want = f.reference(xs[i]);
        EXPECT_LE(ulp_error(ys[i], want), f.max_ulp)
            << f.name << "(" << xs[i] << ") = " << ys[i] << ", libm says " << want;
      }
    }
  }
}

// Every op of the library, with sampled sketch candidates (vectorized ones among them): the
// optimized IR declares no libm function and no math intrinsic LLVM would lower to a call.
TEST(VectorMath, NoKernelOfAnyOpCallsLibm) {
  const std::regex libm(R"(declare .*@(llvm\.(exp|exp2|log|log2|log10|pow|sin|cos)\.|(exp|log|tanh|erf|pow|expf|logf|tanhf|erff|powf)\b))");
  std::mt19937_64 rng(4);
  CompileOptions options;
  options.keep_llvm_ir = true;
  for (const auto& op : testing::op_cases()) {
    auto dag = op.make().value();
    auto sketches = schedule::generate_sketches(dag);
    int compiled = 0;
    for (const auto& sketch : sketches) {
      for (int k = 0; k < 3; ++k) {
        schedule::State state(dag);
        if (!state.apply_all(sketch.steps(sketch.knobs.sample(rng)))) continue;
        auto func = schedule::lower(state, "k");
        if (!func) continue;
        auto kernel = compile_cpu(*func, options);
        ASSERT_TRUE(kernel) << op.label << ": " << kernel.error().message;
        std::smatch m;
        const std::string& ir = kernel->llvm_ir();
        EXPECT_FALSE(std::regex_search(ir, m, libm)) << op.label << " (" << sketch.id << ") calls " << m.str();
        ++compiled;
      }
    }
    EXPECT_GT(compiled, 0) << op.label << ": nothing compiled, nothing checked";
  }
}

// gelu's cost is its erf: a division per vector (a reciprocal in erf, or x / sqrt(2) left as a
// division by a constant) would cost as much as the rest together.
TEST(VectorMath, VectorizedGeluHasNoDivision) {
  auto dag = schedule::elementwise(schedule::Elementwise::kGelu, {4, 64}).value();
  schedule::State state(dag);
  ASSERT_TRUE(state.apply(schedule::SplitStep{"Y", "j", {16}}));
  ASSERT_TRUE(state.apply(schedule::AnnotateStep{"Y", "j.1", "vectorize"}));
  auto func = schedule::lower(state, "gelu");
  ASSERT_TRUE(func) << func.error().message;
  CompileOptions options;
  options.keep_llvm_ir = true;
  auto kernel = compile_cpu(*func, options);
  ASSERT_TRUE(kernel) << kernel.error().message;
  const std::string& ir = kernel->llvm_ir();
  EXPECT_NE(ir.find("<16 x float>"), std::string::npos) << "not vectorized: the check would see nothing";
  EXPECT_EQ(ir.find("fdiv"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessera::runtime
