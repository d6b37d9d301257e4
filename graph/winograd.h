// Winograd convolutions for a channels-last network: which 3x3 convs compute by F(2x2, 3x3)
// (schedule/ops.h, conv2d_winograd), decided once for the whole graph before fusion.
//
// A 3x3, stride-1 convolution by Winograd F(2x2, 3x3) does 16 multiplies per 2x2 output block
// and channel pair instead of 36: 2.25x fewer. In exchange its weights grow to 16 values per
// channel pair instead of 9 (U = G g G^T, computed here once, as a folded constant), read in
// every call, and the input and output pass through two transforms. The weights' extra bytes
// are paid for by the tiles that share them: each value of U is read once per call and used
// once per 2x2 output block, so on a small map (7x7: 16 blocks) the kernel streams more weight
// than it computes with. A conv is rewritten when it is NHWC (channels_last.h) with constant
// weights, 3x3, stride 1, dilation 1, one group, at least kMinWinogradChannels channels in and
// out, and at least kMinWinogradTiles output blocks per image.
//
// The rewritten node stays a Conv with attribute `algorithm` = "winograd_f2x2_3x3" and reads
// the constant `<weights>__winograd` [16, C, K] in place of its HWIO weights; op_compute builds
// its stages from that, and the interpreter computes it with its own loops over the same
// transforms.
#pragma once

#include "graph/graph.h"
#include "schedule/result.h"

namespace tessera::graph {

inline constexpr const char* kConvAlgorithmAttr = "algorithm";
inline constexpr const char* kWinogradAlgorithm = "winograd_f2x2_3x3";
inline constexpr int64_t kMinWinogradChannels = 16;
// Alone, with its weights warm, a 14x14 map (49 blocks) ran 1.73-1.94x faster by Winograd on a
// Zen 5 and a 7x7 map (16 blocks) 0.88x and 1.24x in two runs; in a network the weights come
// cold each call, which costs the small map most (bench/NOTES.md, stop 82). Reasoned, not fitted.
inline constexpr int64_t kMinWinogradTiles = 32;

// Whether `node` is a Conv this pass rewrote.
bool is_winograd(const Node& node);

// `graph` with its eligible convs rewritten as above; the others unchanged.
Result<Graph> use_winograd(const Graph& graph);

}  // namespace tessera::graph
