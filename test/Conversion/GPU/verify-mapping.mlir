// RUN: pipewave-opt %s --pipe-verify-gpu-mapping -split-input-file -verify-diagnostics

// pipe-verify-gpu-mapping rejects computation left on the host after the
// kernel mapping: what upstream's generic parallel-loop mapping can leave
// behind silently.

// A host loop over a device buffer (loop and load both reported).
func.func @host_loop(%buf: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{pipe-verify-gpu-mapping: a loop left on the host in '@host_loop' ('scf.for')}}
  scf.for %i = %c0 to %c8 step %c1 {
    // expected-error @+1 {{pipe-verify-gpu-mapping: a host load of a device buffer in '@host_loop' ('memref.load')}}
    %v = memref.load %buf[%i] : memref<8xf32>
    // expected-error @+1 {{pipe-verify-gpu-mapping: a host store to a device buffer in '@host_loop' ('memref.store')}}
    memref.store %v, %out[%i] : memref<8xf32>
  }
  return
}

// -----

// A linalg op that was not mapped.
func.func @host_linalg(%buf: memref<8xf32>) {
  %cst = arith.constant 0.0 : f32
  // expected-error @+1 {{pipe-verify-gpu-mapping: a linalg op left on the host in '@host_linalg' ('linalg.fill')}}
  linalg.fill ins(%cst : f32) outs(%buf : memref<8xf32>)
  return
}

// -----

// A host copy between device buffers.
func.func @host_copy(%a: memref<8xf32>, %b: memref<8xf32>) {
  // expected-error @+1 {{pipe-verify-gpu-mapping: a host copy of device buffers in '@host_copy' ('memref.copy')}}
  memref.copy %a, %b : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Allowed: views, launches, calls.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: memref<8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<8xf32>
      memref.store %v, %a[%c0] : memref<8xf32>
      gpu.return
    }
  }
  func.func @ok(%a: memref<2x4xf32>) {
    %c1 = arith.constant 1 : index
    %flat = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flat : memref<8xf32>)
    return
  }
}
