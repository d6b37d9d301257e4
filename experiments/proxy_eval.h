// `tessera proxy-eval RECORDS...`: how well the learned proxy ranks schedules it has not seen.
//
// Reads measurement records, finds each record's task in the run's config (config.yaml beside
// the first records file, or --config), holds out a share of every task's records, trains a
// RewardProxy on the rest and reports, per task and overall, pairwise ranking accuracy (the
// share of held-out pairs of different speed ordered correctly) and top-k recall (how many of
// the truly fastest k held-out schedules the proxy also ranks in its top k). --min-gap G leaves
// out pairs whose throughputs differ by less than G (relative), i.e. pairs that measurement
// noise orders as often as speed does. --save writes the trained weights, for `proxy.weights`.
#pragma once

#include <string>
#include <vector>

namespace tessera::experiments {

int run_proxy_eval(const std::vector<std::string>& args);

}  // namespace tessera::experiments
