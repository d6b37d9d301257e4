// Random step proposals over whatever stages and loops a State has (see random_steps.h).
#include "random_steps.h"

#include <algorithm>

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

template <typename T>
const T& pick(const std::vector<T>& v, std::mt19937_64& rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

int64_t uniform(int64_t lo, int64_t hi, std::mt19937_64& rng) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

std::vector<int> stages_with_loops(const State& s) {
  std::vector<int> out;
  for (size_t i = 0; i < s.stages().size(); ++i) {
    if (!s.stage(static_cast<int>(i)).loops.empty() &&
        s.stage(static_cast<int>(i)).location != ComputeLocation::kInlined) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

// A factor that usually divides the extent (the common case) and sometimes does not.
int64_t factor_for(int64_t extent, std::mt19937_64& rng) {
  if (extent <= 1) return 1;
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= extent && d <= 16; ++d) {
    if (extent % d == 0) divisors.push_back(d);
  }
  if (uniform(0, 3, rng) > 0) return pick(divisors, rng);
  return uniform(1, std::min<int64_t>(extent, 16), rng);
}

Step propose(const State& s, std::mt19937_64& rng) {
  std::vector<int> stages = stages_with_loops(s);
  const StageState& st = s.stage(pick(stages, rng));
  const std::string name = st.op->name;
  const Loop& loop = pick(st.loops, rng);
  switch (uniform(0, 15, rng)) {
    case 0:
    case 1:
    case 2: {
      std::vector<int64_t> factors{factor_for(loop.extent, rng)};
      if (uniform(0, 2, rng) == 0) factors.push_back(factor_for(std::max<int64_t>(1, loop.extent / factors[0]), rng));
      return SplitStep{name, loop.name, factors};
    }
    case 3: {
      std::vector<std::string> order;
      for (const Loop& l : st.loops) order.push_back(l.name);
      std::shuffle(order.begin(), order.end(), rng);
      return ReorderStep{name, order};
    }
    case 4: {
      size_t i = static_cast<size_t>(uniform(0, static_cast<int64_t>(st.loops.size()) - 1, rng));
      if (i + 1 < st.loops.size()) return FuseStep{name, {st.loops[i].name, st.loops[i + 1].name}};
      return FuseStep{name, {st.loops[i].name}};
    }
    case 5:
    case 6: {
      static const std::vector<std::string> kinds{"parallel", "vectorize", "unroll"};
      return AnnotateStep{name, loop.name, pick(kinds, rng)};
    }
    case 7: return ComputeInlineStep{name};
    case 8:
    case 9: {
      const StageState& target = s.stage(pick(stages, rng));
      return ComputeAtStep{name, target.op->name, pick(target.loops, rng).name};
    }
    case 10: return ComputeRootStep{name};
    case 11: return CacheWriteStep{name, uniform(0, 1, rng) ? "local" : "global"};
    case 12: {
      // A producer of this stage, read through a cache.
      if (st.op->inputs.empty()) return ComputeRootStep{name};
      return CacheReadStep{pick(st.op->inputs, rng)->name, name, uniform(0, 1, rng) ? "local" : "global"};
    }
    case 13: {
      // A random order of the stage's dimensions, one of them sometimes blocked (the block
      // not always dividing: the buffer is then padded).
      const size_t rank = st.op->axes.size();
      if (rank == 0) return PackStep{name};
      std::vector<std::string> dims;
      const size_t blocked = static_cast<size_t>(uniform(0, static_cast<int64_t>(rank), rng));
      const int64_t block = uniform(2, 8, rng);
      for (size_t d = 0; d < rank; ++d) {
        dims.push_back(std::to_string(d) + (d == blocked ? "/" + std::to_string(block) : ""));
      }
      std::shuffle(dims.begin(), dims.end(), rng);
      if (blocked < rank) {
        dims.insert(dims.begin() + uniform(0, static_cast<int64_t>(dims.size()), rng),
                    std::to_string(blocked) + "%" + std::to_string(block));
      }
      return LayoutStep{name, dims};
    }
    case 14: return PackStep{name};
    default: {
      if (uniform(0, 1, rng)) return AutoUnrollStep{name, pick(std::vector<int64_t>{0, 16, 64}, rng)};
      return RFactorStep{name, loop.name};
    }
  }
}

}  // namespace

RandomSchedule random_schedule(const ComputeDAG& dag, std::mt19937_64& rng, int wanted_steps) {
  RandomSchedule out;
  State state(dag);
  for (int attempt = 0; attempt < wanted_steps * 8 && static_cast<int>(out.steps.size()) < wanted_steps;
       ++attempt) {
    Step step = propose(state, rng);
    std::string before = state.describe();
    if (state.apply(step)) {
      out.steps.push_back(step);
    } else {
      ++out.refused;
      if (state.describe() != before || state.history().size() != out.steps.size()) {
        out.refusal_changed_state = true;
      }
    }
  }
  return out;
}

}  // namespace tessera::testing
