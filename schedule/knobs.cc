// Knob domains, sampling, neighbour moves and mutation (see knobs.h).
#include "schedule/knobs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace tessera::schedule {
namespace {

void factorizations(int64_t rest, int parts, int64_t max_innermost, std::vector<int64_t>& prefix,
                    std::vector<std::vector<int64_t>>& out) {
  if (parts == 1) {
    if (rest <= max_innermost) {
      prefix.push_back(rest);
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int64_t f = 1; f <= rest; ++f) {
    if (rest % f != 0) continue;
    prefix.push_back(f);
    factorizations(rest / f, parts - 1, max_innermost, prefix, out);
    prefix.pop_back();
  }
}

std::vector<int64_t> prime_factors(int64_t n) {
  std::vector<int64_t> primes;
  for (int64_t p = 2; p * p <= n; ++p) {
    if (n % p == 0) primes.push_back(p);
    while (n % p == 0) n /= p;
  }
  if (n > 1) primes.push_back(n);
  return primes;
}

int64_t divisor_count(int64_t n) {
  int64_t count = 0;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d == 0) count += d * d == n ? 1 : 2;
  }
  return count;
}

int64_t inner_product(const std::vector<int64_t>& tile) {
  int64_t q = 1;
  for (size_t l = 1; l < tile.size(); ++l) q *= tile[l];
  return q;
}

// A tile with its outermost factor recomputed from the inner ones (a neighbour move changes
// both; for an exact factorization this is the extent divided by the inner product).
std::vector<int64_t> with_outermost(const Knob& knob, std::vector<int64_t> tile) {
  if (knob.extent > 0 && !tile.empty()) {
    const int64_t q = inner_product(tile);
    tile[0] = (knob.extent + q - 1) / q;
  }
  return tile;
}

int index_of(const Knob& knob, const std::vector<int64_t>& value) {
  auto it = std::find(knob.domain.begin(), knob.domain.end(), value);
  return it == knob.domain.end() ? -1 : static_cast<int>(it - knob.domain.begin());
}

double weight_of(KnobKind kind, const MutationWeights& w) {
  switch (kind) {
    case KnobKind::kTile: return w.tile;
    case KnobKind::kUnroll: return w.unroll;
    case KnobKind::kParallel: return w.parallel;
    case KnobKind::kComputeLocation: return w.compute_location;
    case KnobKind::kChoice: return w.choice;
  }
  return 0;
}

// Ceil tiles: inner factors of a padded extent (the next multiple of 16 or of 64), the outermost
// ceil(extent / their product), kept where that pads the extent by at most a quarter.
void add_ceil_tiles(Knob& k, int parts, int64_t bound) {
  const int64_t extent = k.extent;
  std::vector<int64_t> prefix;
  std::set<std::vector<int64_t>> seen(k.domain.begin(), k.domain.end());
  for (int64_t multiple : {16, 64}) {
    const int64_t padded = (extent + multiple - 1) / multiple * multiple;
    std::vector<std::vector<int64_t>> tiles;
    factorizations(padded, parts, bound, prefix, tiles);
    for (std::vector<int64_t>& t : tiles) {
      t = with_outermost(k, std::move(t));
      // A split's inner factors may not pass the extent; nor pad it by more than a quarter.
      if (inner_product(t) > extent || 4 * (t[0] * inner_product(t) - extent) > extent) continue;
      if (seen.insert(t).second) k.domain.push_back(std::move(t));
    }
  }
}

}  // namespace

const char* to_string(KnobKind kind) {
  switch (kind) {
    case KnobKind::kTile: return "tile";
    case KnobKind::kUnroll: return "unroll";
    case KnobKind::kParallel: return "parallel";
    case KnobKind::kComputeLocation: return "compute_location";
    case KnobKind::kChoice: return "choice";
  }
  return "?";
}

Knob tile_knob(std::string name, int64_t extent, int parts, int64_t max_innermost, bool ceil_splits,
               int64_t whole_vectors) {
  Knob k{std::move(name), KnobKind::kTile, {}, extent};
  std::vector<int64_t> prefix;
  const int64_t bound = std::max<int64_t>(1, max_innermost);
  factorizations(extent, parts, bound, prefix, k.domain);
  if (ceil_splits && parts >= 2 && extent >= 2 && !(divisor_count(extent) > 8 && extent % 16 == 0)) {
    add_ceil_tiles(k, parts, bound);
  }
  // A vector axis keeps the tiles of whole vectors, padded or not, when it has any.
  auto partial = [&](const std::vector<int64_t>& t) { return t.back() % whole_vectors != 0; };
  if (whole_vectors > 1 && !std::all_of(k.domain.begin(), k.domain.end(), partial)) std::erase_if(k.domain, partial);
  return k;
}

Knob choice_knob(std::string name, KnobKind kind, std::vector<int64_t> values) {
  Knob k{std::move(name), kind, {}};
  for (int64_t v : values) k.domain.push_back({v});
  return k;
}

KnobValues KnobSpace::sample(std::mt19937_64& rng) const {
  KnobValues values;
  for (const Knob& k : knobs_) {
    values.push_back(static_cast<int>(std::uniform_int_distribution<size_t>(0, k.domain.size() - 1)(rng)));
  }
  return values;
}

std::vector<KnobValues> KnobSpace::neighbours(const KnobValues& values, size_t k) const {
  const Knob& knob = knobs_[k];
  std::vector<KnobValues> out;
  auto with = [&](int index) {
    KnobValues next = values;
    next[k] = index;
    out.push_back(std::move(next));
  };
  if (knob.kind != KnobKind::kTile) {
    if (values[k] > 0) with(values[k] - 1);
    if (values[k] + 1 < static_cast<int>(knob.domain.size())) with(values[k] + 1);
    return out;
  }
  // Move one prime factor from level a to level b.
  const std::vector<int64_t>& tile = knob.domain[static_cast<size_t>(values[k])];
  for (size_t a = 0; a < tile.size(); ++a) {
    for (int64_t p : prime_factors(tile[a])) {
      for (size_t b = 0; b < tile.size(); ++b) {
        if (a == b) continue;
        std::vector<int64_t> moved = tile;
        moved[a] /= p;
        moved[b] *= p;
        moved = with_outermost(knob, std::move(moved));
        int index = index_of(knob, moved);  // absent when it breaks the innermost bound
        if (index >= 0) with(index);
      }
    }
  }
  return out;
}

int KnobSpace::move_count(size_t k) const {
  const Knob& knob = knobs_[k];
  if (knob.kind != KnobKind::kTile) return 2;
  int parts = static_cast<int>(knob.domain.front().size());
  return parts * parts;  // a*P+b; the a == b moves are never legal
}

std::optional<KnobValues> KnobSpace::apply_move(const KnobValues& values, size_t k, int move) const {
  const Knob& knob = knobs_[k];
  KnobValues next = values;
  if (knob.kind != KnobKind::kTile) {
    int index = values[k] + (move == 0 ? -1 : 1);
    if (move < 0 || move > 1 || index < 0 || index >= static_cast<int>(knob.domain.size())) return std::nullopt;
    next[k] = index;
    return next;
  }
  const std::vector<int64_t>& tile = knob.domain[static_cast<size_t>(values[k])];
  const int parts = static_cast<int>(tile.size());
  const int a = move / parts, b = move % parts;
  if (move < 0 || a >= parts || a == b || tile[static_cast<size_t>(a)] == 1) return std::nullopt;
  std::vector<int64_t> moved = tile;
  int64_t p = prime_factors(moved[static_cast<size_t>(a)]).front();
  moved[static_cast<size_t>(a)] /= p;
  moved[static_cast<size_t>(b)] *= p;
  moved = with_outermost(knob, std::move(moved));
  int index = index_of(knob, moved);  // absent when it breaks the innermost bound
  if (index < 0) return std::nullopt;
  next[k] = index;
  return next;
}

std::vector<KnobValues> KnobSpace::neighbours(const KnobValues& values) const {
  std::vector<KnobValues> all;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    auto n = neighbours(values, k);
    all.insert(all.end(), n.begin(), n.end());
  }
  return all;
}

std::vector<bool> KnobSpace::legal_move_mask(const KnobValues& values) const {
  std::vector<bool> mask;
  for (size_t k = 0; k < knobs_.size(); ++k) mask.push_back(!neighbours(values, k).empty());
  return mask;
}

KnobValues KnobSpace::mutate(const KnobValues& values, std::mt19937_64& rng,
                             const MutationWeights& weights) const {
  std::vector<double> w;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    // A category's weight is shared by its knobs; knobs that cannot move get none.
    size_t same = std::count_if(knobs_.begin(), knobs_.end(),
                                [&](const Knob& o) { return o.kind == knobs_[k].kind; });
    bool movable = !neighbours(values, k).empty();
    w.push_back(movable ? weight_of(knobs_[k].kind, weights) / static_cast<double>(same) : 0.0);
  }
  if (std::all_of(w.begin(), w.end(), [](double x) { return x <= 0; })) return values;
  size_t k = std::discrete_distribution<size_t>(w.begin(), w.end())(rng);
  auto options = neighbours(values, k);
  return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
}

nlohmann::json KnobSpace::to_json(const KnobValues& values) const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t k = 0; k < knobs_.size(); ++k) {
    const auto& v = value(values, k);
    j[knobs_[k].name] = knobs_[k].kind == KnobKind::kTile ? nlohmann::json(v) : nlohmann::json(v[0]);
  }
  return j;
}

Result<KnobValues> KnobSpace::from_json(const nlohmann::json& j) const {
  if (!j.is_object()) return make_error("knobs must be a JSON object");
  KnobValues values;
  for (const Knob& knob : knobs_) {
    if (!j.contains(knob.name)) return make_error("knob '" + knob.name + "' is missing");
    const nlohmann::json& v = j[knob.name];
    std::vector<int64_t> value;
    if (knob.kind == KnobKind::kTile && v.is_array() &&
        std::all_of(v.begin(), v.end(), [](const auto& x) { return x.is_number_integer(); })) {
      value = v.get<std::vector<int64_t>>();
    } else if (knob.kind != KnobKind::kTile && v.is_number_integer()) {
      value = {v.get<int64_t>()};
    } else {
      return make_error("knob '" + knob.name + "' has a value of the wrong type: " + v.dump());
    }
    int index = index_of(knob, value);
    if (index < 0) return make_error("knob '" + knob.name + "' cannot take the value " + v.dump());
    values.push_back(index);
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::none_of(knobs_.begin(), knobs_.end(), [&](const Knob& k) { return k.name == it.key(); })) {
      return make_error("unknown knob '" + it.key() + "'");
    }
  }
  return values;
}

namespace {

// |log(a / b)| for positive numbers; the plain difference otherwise (0/1 switches, -1 roots).
double log_gap(int64_t a, int64_t b) {
  if (a > 0 && b > 0) return std::abs(std::log(static_cast<double>(a) / static_cast<double>(b)));
  return static_cast<double>(std::llabs(a - b));
}

}  // namespace

std::optional<KnobSpace::Nearest> KnobSpace::nearest(const nlohmann::json& j) const {
  if (!j.is_object() || j.size() != knobs_.size()) return std::nullopt;
  Nearest out;
  for (const Knob& knob : knobs_) {
    if (!j.contains(knob.name)) return std::nullopt;
    const nlohmann::json& v = j[knob.name];
    std::vector<int64_t> wanted;
    if (knob.kind == KnobKind::kTile && v.is_array() && !v.empty() &&
        std::all_of(v.begin(), v.end(), [](const auto& x) { return x.is_number_integer() && x.template get<int64_t>() > 0; })) {
      wanted = v.get<std::vector<int64_t>>();
      if (wanted.size() != knob.domain.front().size()) return std::nullopt;
    } else if (knob.kind != KnobKind::kTile && v.is_number_integer()) {
      wanted = {v.get<int64_t>()};
    } else {
      return std::nullopt;
    }
    // A tile's outermost factor only covers what the inner ones leave, so it is not compared.
    const size_t first = knob.kind == KnobKind::kTile ? 1 : 0;
    int best = -1;
    double best_gap = 0;
    for (size_t d = 0; d < knob.domain.size(); ++d) {
      double gap = 0;
      for (size_t i = first; i < wanted.size(); ++i) gap += log_gap(wanted[i], knob.domain[d][i]);
      if (best < 0 || gap < best_gap) best = static_cast<int>(d), best_gap = gap;
    }
    if (knob.kind == KnobKind::kTile) {
      int64_t extent = 1;
      for (int64_t f : wanted) extent *= f;
      out.distance += log_gap(extent, knob.extent);
    }
    out.distance += best_gap;
    out.values.push_back(best);
  }
  return out;
}

}  // namespace tessera::schedule
