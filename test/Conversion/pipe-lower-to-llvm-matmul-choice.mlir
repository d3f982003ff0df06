// RUN: pipewave-compile %s --stages 1 --emit=mlir -o - --summary-json %t.default.json | FileCheck %s --check-prefix=DEFAULT
// RUN: FileCheck %s --check-prefix=DEFAULT-SOURCE < %t.default.json
// RUN: pipewave-compile %s --stages 1 --emit=mlir -o - --device %S/Inputs/matmul-kernels-device.json --summary-json %t.device.json | FileCheck %s --check-prefix=DEVICE
// RUN: FileCheck %s --check-prefix=DEVICE-SOURCE < %t.device.json
// RUN: mkdir -p %t.cache/devices && cp %S/Inputs/matmul-kernels-device.json %t.cache/devices/host.json
// RUN: env PIPEWAVE_CACHE_DIR=%t.cache pipewave-compile %s --stages 1 --emit=mlir -o - --summary-json %t.host.json | FileCheck %s --check-prefix=DEVICE
// RUN: FileCheck %s --check-prefix=HOST-SOURCE < %t.host.json
// RUN: pipewave-compile %s --stages 1 --emit=mlir -o - --device %S/Inputs/matmul-kernels-device.json --matmul-choice='*:vector' --summary-json %t.all.json | FileCheck %s --check-prefix=ALL
// RUN: FileCheck %s --check-prefix=ALL-SOURCE < %t.all.json
// RUN: not pipewave-compile %s --stages 1 --emit=mlir -o /dev/null --device %S/Inputs/matmul-kernels-bad-class.json 2>&1 | FileCheck %s --check-prefix=BAD

// --matmul=auto (the default) gives each matmul the kernel of its class:
// its layout (which operand is a transposed copy) and its shape. This
// model's forward has two nn-skinny-m matmuls (32 rows); its backward the
// weight gradients X^T dY (tn-skinny-k, K the 32 samples) and the input
// gradient dY W^T (nt-skinny-m).
//
// Without a calibration (lit hides the user's cache) the built-in default:
// vectorised except nt-skinny-m, tn-skinny-n and tt: the forward
// vectorises, the backward keeps one BLAS call, the input gradient's.
// DEFAULT-LABEL:    llvm.func internal @main_stage0_fwd(
// DEFAULT-NOT:        llvm.call @pw_sgemm
// DEFAULT:            llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// DEFAULT-NOT:        llvm.call @pw_sgemm
// DEFAULT-LABEL:    llvm.func internal @main_stage0_bwd(
// DEFAULT:            llvm.call @pw_sgemm_batched(
// DEFAULT-NOT:        llvm.call @pw_sgemm
// DEFAULT:            llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// DEFAULT-NOT:        llvm.call @pw_sgemm
// DEFAULT-LABEL:    llvm.func @pw_stage0_backward(
// DEFAULT-SOURCE: "matmul": "auto: vector for 13 of 20 matmul classes, blas for 7; chosen by the built-in default, device 'cpu' has no measured kernels (pipewave-calibrate measures them)",

// A calibration that measured OpenBLAS faster for nn-skinny-m and
// tn-skinny-k and the vectorised kernel for nt-skinny-m (given as
// --device, or cached as the host's): the forward and the weight gradients
// call BLAS (the weight gradients' calls also take the weight, whose SGD
// update they may run: pipe-fuse-updates), the input gradient vectorises.
// DEVICE-LABEL:     llvm.func internal @main_stage0_fwd(
// DEVICE-NOT:         llvm.intr.fmuladd
// DEVICE-COUNT-2:     llvm.call @pw_sgemm_batched(
// DEVICE-NOT:         llvm.intr.fmuladd
// DEVICE-LABEL:     llvm.func internal @main_stage0_bwd(
// DEVICE-COUNT-2:     llvm.call @pw_sgemm_batched_update(
// DEVICE-NOT:         llvm.call @pw_sgemm
// DEVICE-LABEL:     llvm.func @pw_stage0_backward(
// DEVICE-SOURCE: "matmul": "auto: vector for 12 of 20 matmul classes, blas for 8; chosen by the calibration of device '{{.*}}Inputs/matmul-kernels-device.json'",
// HOST-SOURCE: "matmul": "auto: vector for 12 of 20 matmul classes, blas for 8; chosen by the calibration of device 'host'",

// --matmul-choice overrides the calibration.
// ALL-NOT: llvm.call @pw_sgemm
// ALL-SOURCE: "matmul": "auto: vector for 20 of 20 matmul classes, blas for 0; chosen by the matmul-choice option",

// A calibration naming an unknown class is an error.
// BAD: pipewave-compile: error: device '{{.*}}matmul-kernels-bad-class.json': matmulKernels: matmul choice rule 'tn-lanky-k:blas': unknown class

func.func @main(%x: tensor<32x128xf32> {pipe.name = "x"},
                %y: tensor<32x128xf32> {pipe.name = "y"},
                %w1: tensor<1x128x128xf32> {pipe.param, pipe.name = "w1"},
                %w2: tensor<1x128x128xf32> {pipe.param, pipe.name = "w2"}) -> tensor<f32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[1, 32, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[32, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s0 = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %x3 = tosa.reshape %x, %s3 : (tensor<32x128xf32>, !tosa.shape<3>) -> tensor<1x32x128xf32>
  %h = tosa.matmul %x3, %w1, %zp, %zp : (tensor<1x32x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x128xf32>
  %a = tosa.tanh %h : (tensor<1x32x128xf32>) -> tensor<1x32x128xf32>
  %o = tosa.matmul %a, %w2, %zp, %zp : (tensor<1x32x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x128xf32>
  %o2 = tosa.reshape %o, %s2 : (tensor<1x32x128xf32>, !tosa.shape<2>) -> tensor<32x128xf32>
  %d = tosa.sub %o2, %y : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<32x128xf32>, tensor<32x128xf32>, tensor<1xi8>) -> tensor<32x128xf32>
  %r0 = tosa.reduce_sum %sq {axis = 0 : i32} : (tensor<32x128xf32>) -> tensor<1x128xf32>
  %r1 = tosa.reduce_sum %r0 {axis = 1 : i32} : (tensor<1x128xf32>) -> tensor<1x1xf32>
  %loss = tosa.reshape %r1, %s0 : (tensor<1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %loss : tensor<f32>
}
