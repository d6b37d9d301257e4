// The tiny CNN of tests/integration/models, imported and prepared as a network tune prepares a
// model (NHWC): what the experiments tests build their networks from.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "graph/onnx/import.h"
#include "graph/prepare.h"

namespace tessera::experiments {

// Fails the calling test (and returns an empty network) when the model cannot be read.
inline graph::PreparedNetwork prepared_tiny_cnn() {
  auto imported = graph::import_onnx(std::string(TESSERA_SOURCE_DIR) + "/tests/integration/models/tiny_cnn.onnx");
  EXPECT_TRUE(imported.ok()) << imported.error().message;
  if (!imported) return {};
  auto layout = graph::parse_layout("nhwc");
  EXPECT_TRUE(layout.ok());
  if (!layout) return {};
  auto prepared = graph::prepare_network(*imported, *layout);
  EXPECT_TRUE(prepared.ok()) << prepared.error().message;
  if (!prepared) return {};
  return std::move(*prepared);
}

}  // namespace tessera::experiments
