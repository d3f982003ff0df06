// The attributes pipe-plan writes are checked by the pipe dialect.
// RUN: pipewave-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// expected-error@+1 {{'pipe.replicas' must be a non-empty array<i64: ...> of replica counts >= 1 on a function}}
func.func @main() attributes {pipe.replicas = array<i64: 2, 0>} {
  return
}

// -----

// expected-error@+1 {{'pipe.replicas' must be a non-empty array<i64: ...> of replica counts >= 1 on a function}}
func.func @main() attributes {pipe.replicas = 2 : i64} {
  return
}

// -----

// expected-error@+1 {{'pipe.microbatches' must be an integer >= 1 on a function}}
func.func @main() attributes {pipe.microbatches = 0 : i64} {
  return
}

// -----

func.func @main() {
  // expected-error@+1 {{'pipe.microbatches' must be an integer >= 1 on a function}}
  "test.op"() {pipe.microbatches = 2 : i64} : () -> ()
  return
}

// -----

func.func @main() attributes {pipe.microbatches = 4 : i64, pipe.replicas = array<i64: 4, 4>} {
  return
}
