// The device kernels of cuda_ops_nn.cpp (rope, attention, cross_entropy, scatter_add,
// quantize, linear_q, csr_from_dense, csr_from_coo), merged into cuda_ops.cpp's table.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "backends/cuda/cuda_context.h"

namespace rung::cuda {

void add_nn_dev_kernels(std::map<std::string, DevKernel, std::less<>>& table);
// conv, conv_transpose, max_pool, avg_pool (cuda_ops_conv.cpp).
void add_conv_dev_kernels(std::map<std::string, DevKernel, std::less<>>& table);
// True for the ops whose kernel sizes (allocates) the outputs the shape rule leaves symbolic.
bool dev_kernel_sizes_outputs(std::string_view op);

}  // namespace rung::cuda
