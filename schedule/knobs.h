// Knobs: the holes of a sketch and the values an agent picks for them.
//
// Every knob has a finite, ordered domain and a value is an index into it, so a candidate's
// knobs are a small vector of integers. A tile knob's domain is the ordered factorizations of
// an extent into `parts` factors (outermost first, innermost bounded), and, where asked for,
// ceil tiles for extents with few divisors (see tile_knob); a choice knob's is a
// list of numbers (unroll depth, parallel granularity, compute location ...). The space gives
// uniform sampling, neighbour moves (move a prime factor between two tile levels; next or
// previous choice), legal-move masks and mutation, so any agent can act on any sketch.
//
// Adding a knob kind: give it a domain builder here, neighbour moves in `neighbours`, and a
// mutation category with a default weight in MutationWeights.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "schedule/result.h"

namespace tessera::schedule {

enum class KnobKind : uint8_t { kTile, kUnroll, kParallel, kComputeLocation, kChoice };
const char* to_string(KnobKind kind);

struct Knob {
  std::string name;
  KnobKind kind = KnobKind::kChoice;
  std::vector<std::vector<int64_t>> domain;  // tile: factors outer..inner; others: {value}
  int64_t extent = 0;                        // tile: the extent split; outermost = ceil(extent / inner)
};

// The factorizations of `extent` into `parts` factors, innermost at most `max_innermost`. With
// `ceil_splits`, an extent with few divisors (at most 8) or not a multiple of 16 also gets ceil
// tiles: inner factors that factor a padded extent (the next multiple of 16 or of 64), the
// outermost ceil(extent / their product), kept where that pads the extent by at most a quarter.
// Their splits do not divide: the lowered nest guards its edge (partitioned, partition.h). A
// 1009 gets [16, 1, 4, 16] (1024 points) beside [1009, 1, 1, 1]. With `whole_vectors` (on the
// axis a nest vectorizes, the lanes of a full vector), an extent keeps only the tiles whose
// innermost factor is a multiple of it, padded or exact, where it has any: an edge tile padded
// to whole vectors costs little (pad_local.h), a narrower vector costs on every tile, and the
// narrow tiles would otherwise crowd the whole-vector ones out of a search (the exact tiles of
// a 1000: innermost 8, 10, 20, 25, 40 ...; of 144 channels: 11 of 13 innermost factors).
Knob tile_knob(std::string name, int64_t extent, int parts, int64_t max_innermost, bool ceil_splits = false,
               int64_t whole_vectors = 0);
Knob choice_knob(std::string name, KnobKind kind, std::vector<int64_t> values);

using KnobValues = std::vector<int>;  // index into each knob's domain

// Ansor's CPU defaults: tile 0.90, unroll 0.04, compute location 0.05, parallel 0.01.
struct MutationWeights {
  double tile = 0.90, unroll = 0.04, compute_location = 0.05, parallel = 0.01, choice = 0.04;
};

class KnobSpace {
 public:
  KnobSpace() = default;
  explicit KnobSpace(std::vector<Knob> knobs) : knobs_(std::move(knobs)) {}

  const std::vector<Knob>& knobs() const { return knobs_; }
  size_t size() const { return knobs_.size(); }
  // The value of knob `k` under `values` (a tile's factors, or a one-element choice).
  const std::vector<int64_t>& value(const KnobValues& values, size_t k) const {
    return knobs_[k].domain[static_cast<size_t>(values[k])];
  }
  int64_t choice(const KnobValues& values, size_t k) const { return value(values, k)[0]; }

  KnobValues sample(std::mt19937_64& rng) const;
  // Values one move away along knob `k`.
  std::vector<KnobValues> neighbours(const KnobValues& values, size_t k) const;
  // Every knob's neighbours, concatenated.
  std::vector<KnobValues> neighbours(const KnobValues& values) const;
  // mask[k] is true when knob k has at least one neighbour from `values`.
  std::vector<bool> legal_move_mask(const KnobValues& values) const;
  // Fixed-size move sets, for agents that pick one edit at a time: a tile knob of P levels
  // has P*(P-1) moves (move the smallest prime factor of level a to level b; move a*P+b,
  // a != b), every other knob 2 (0: previous value, 1: next). `apply_move` gives std::nullopt
  // for a move that is not legal from `values`.
  int move_count(size_t k) const;
  std::optional<KnobValues> apply_move(const KnobValues& values, size_t k, int move) const;

  // One random neighbour move on a knob chosen by category weight (renormalized over the
  // categories this space has); `values` unchanged when no knob can move.
  KnobValues mutate(const KnobValues& values, std::mt19937_64& rng,
                    const MutationWeights& weights = {}) const;

  // {"knob name": [factors] or value, ...}
  nlohmann::json to_json(const KnobValues& values) const;
  Result<KnobValues> from_json(const nlohmann::json& json) const;

  // Knob values of another workload's schedule carried over to this space (transfer-tuning):
  // the same knob names, each value mapped to the nearest in this domain (a tile's inner
  // factors nearest in log scale, the outermost left to cover the extent; a choice's nearest
  // number). `distance` grows with how far the shapes are apart: the summed |log| ratio of
  // the tiles' extents, plus the log-distance of every value that had to move. std::nullopt
  // when the names differ or a value has the wrong type.
  struct Nearest {
    KnobValues values;
    double distance = 0;
  };
  std::optional<Nearest> nearest(const nlohmann::json& json) const;

 private:
  std::vector<Knob> knobs_;
};

}  // namespace tessera::schedule
