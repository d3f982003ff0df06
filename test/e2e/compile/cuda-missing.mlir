// UNSUPPORTED: cuda-toolkit
// A build that found no CUDA toolkit says so when asked for GPU code.
// RUN: not pipewave-compile %pipewave_src/examples/mlp.mlir --target cuda --stages 1 -o %t 2>&1 | FileCheck %s
// CHECK: needs the CUDA toolkit (ptxas, fatbinary, libdevice) and this build found none
