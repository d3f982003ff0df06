// End-to-end: compile examples/mlp.mlir and run it with a one-process stub
// of the runtime (Inputs/stub_runtime.c: every stage's forward, microbatch
// by microbatch, with deterministic inputs), comparing the loss with a
// pure-Python reference (Inputs/ref_mlp.py). The unpartitioned model (S=1)
// is the reference; partitioned and microbatched builds must agree.

// RUN: cc -c -O2 -I%pipewave_src/runtime/include %S/Inputs/stub_runtime.c -o %t.stub.o

// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.s1 --stages 1 --runtime-lib=%t.stub.o
// RUN: %t.s1 > %t.s1.txt
// RUN: FileCheck %s --check-prefix=S1 < %t.s1.txt
// RUN: %python %S/Inputs/ref_mlp.py %t.s1.txt

// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.s4 --stages 4 --microbatches 8 --schedule 1f1b --runtime-lib=%t.stub.o
// RUN: %t.s4 > %t.s4.txt
// RUN: FileCheck %s --check-prefix=S4 < %t.s4.txt
// RUN: %python %S/Inputs/ref_mlp.py %t.s4.txt

// The same with each matmul lowering (auto above: vectorized, with OpenBLAS
// for the 8-column last layer), and GPipe.
// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.blas --stages 2 --microbatches 2 --matmul=blas --runtime-lib=%t.stub.o
// RUN: %t.blas > %t.blas.txt
// RUN: %python %S/Inputs/ref_mlp.py %t.blas.txt
// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.vector --stages 3 --microbatches 4 --matmul=vector --runtime-lib=%t.stub.o
// RUN: %t.vector > %t.vector.txt
// RUN: %python %S/Inputs/ref_mlp.py %t.vector.txt
// RUN: pipewave-compile %pipewave_src/examples/mlp.mlir -o %t.loops --stages 2 --microbatches 4 --schedule gpipe --matmul=loops -O2 --runtime-lib=%t.stub.o
// RUN: %t.loops > %t.loops.txt
// RUN: %python %S/Inputs/ref_mlp.py %t.loops.txt

// S1: model mlp.mlir schedule 1f1b stages 1 microbatches 1 ranks 1
// S1: output 0 (sum) numel 1 sum
// S4: model mlp.mlir schedule 1f1b stages 4 microbatches 8 ranks 4
// S4: output 0 (sum) numel 1 sum
