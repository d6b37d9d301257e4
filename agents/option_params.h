// OptionParams<Options>: an agent's parameters declared once, beside the options struct they
// fill. Each declaration names the parameter, its kind, lower bound and help, and how to reach
// its member of Options; the default is that member's value in a default-constructed Options,
// so the struct's initializers stay the one place defaults live. From the declarations come
// the registry's AgentParam list (configs are validated against it, `tessera agents` prints
// it) and `fill`, which turns validated values into the options struct.
//
//   const OptionParams<EvolutionOptions>& evolution_params() {
//     static const OptionParams<EvolutionOptions> p{{
//         param<EvolutionOptions>("population", Kind::kInteger, 2, "candidates per generation",
//                                 [](EvolutionOptions& o) -> int& { return o.population; })}};
//     return p;
//   }
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "agents/registry.h"

namespace tessera::agents {

template <class Options>
struct OptionParam {
  AgentParam declared;                          // name, kind, lower bound, default, help
  std::function<void(Options&, double)> set;   // writes a validated value into its member
};

// A parameter reaching its member through `member` ((Options&) -> int& | double& | bool&).
template <class Options, class Member>
OptionParam<Options> param(std::string name, AgentParam::Kind kind, double min, std::string help, Member member) {
  using T = std::remove_reference_t<decltype(member(std::declval<Options&>()))>;
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, double> || std::is_same_v<T, bool>,
                "a parameter's member is an int, a double or a bool");
  Options defaults{};
  const double fallback = static_cast<double>(member(defaults));
  return {{std::move(name), kind, min, fallback, std::move(help)},
          [member](Options& o, double v) {
            if constexpr (std::is_same_v<T, bool>) member(o) = v != 0;
            else if constexpr (std::is_same_v<T, int>) member(o) = static_cast<int>(v);
            else member(o) = v;
          }};
}

template <class Options>
class OptionParams {
 public:
  explicit OptionParams(std::vector<OptionParam<Options>> params) : params_(std::move(params)) {}

  // The declarations as the registry lists them.
  std::vector<AgentParam> declared() const {
    std::vector<AgentParam> out;
    for (const OptionParam<Options>& p : params_) out.push_back(p.declared);
    return out;
  }
  // `start` with every declared parameter of `values` written in (values come validated and
  // complete from make_agent; a missing one keeps start's value).
  Options fill(const AgentParams& values, Options start = {}) const {
    for (const OptionParam<Options>& p : params_) {
      if (auto it = values.find(p.declared.name); it != values.end()) p.set(start, it->second);
    }
    return start;
  }

 private:
  std::vector<OptionParam<Options>> params_;
};

// "name  kind >= min, default d: help" lines for `tessera agents`.
std::vector<std::string> describe_params(const std::vector<AgentParam>& params);

}  // namespace tessera::agents
