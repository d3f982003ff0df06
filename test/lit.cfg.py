# -*- Python -*-
# lit configuration of the pipewave test suite.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "pipewave"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pipewave_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%pipewave_src", config.pipewave_src_root))
config.substitutions.append(("%pipewave_obj", config.pipewave_obj_root))
config.substitutions.append(
    ("%pipewave_pass_plugin",
     os.path.join(config.pipewave_lib_dir, "PipewavePassPlugin.so")))
config.substitutions.append(
    ("%pipewave_dialect_plugin",
     os.path.join(config.pipewave_lib_dir, "PipewaveDialectPlugin.so")))
config.substitutions.append(
    ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))

# mlir-runner and its support libraries, for the executed gradient checks
# (test/GradCheck). The utils substitutions come first: lit substitutes in
# order and `%mlir_runner` is a prefix of them.
llvm_lib_dir = getattr(config, "llvm_lib_dir", "") or os.path.join(
    os.path.dirname(config.llvm_tools_dir), "lib")
mlir_runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
runner_utils = os.path.join(llvm_lib_dir, "libmlir_runner_utils.so")
c_runner_utils = os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so")
config.substitutions.append(("%mlir_c_runner_utils", c_runner_utils))
config.substitutions.append(("%mlir_runner_utils", runner_utils))
config.substitutions.append(("%mlir_runner", mlir_runner))
if all(os.path.exists(p) for p in (mlir_runner, runner_utils, c_runner_utils)):
    config.available_features.add("mlir-runner")

# The CUDA toolkit and libpipewave_cuda (runtime/cuda), when CMake found
# the toolkit: tests that build cubins/fatbins and link against the launch
# layer (no GPU needed).
if getattr(config, "pipewave_have_cuda", False):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit_dir))
    config.substitutions.append(
        ("%pipewave_cuda_include",
         os.path.join(config.pipewave_src_root, "runtime", "cuda", "include")))
config.substitutions.append(
    ("%llvm_tools_dir", config.llvm_tools_dir))
# No NVIDIA GPU on this machine: tests of what happens without one.
if not os.path.exists("/dev/nvidiactl"):
    config.available_features.add("no-gpu")


def read_text(path):
    """The file's text, or "" when it cannot be read."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


# A CPU with AVX-512: pipewave's own GEMM kernels run (lib/Target/CPU),
# else OpenBLAS takes every product.
if " avx512f" in read_text("/proc/cpuinfo"):
    config.available_features.add("avx512")

# Transparent huge pages given only where a process asks (madvise): the
# runtime's buffers (HostBufferPool.h) get them, and nothing else does.
if "[madvise]" in read_text("/sys/kernel/mm/transparent_hugepage/enabled"):
    config.available_features.add("thp-madvise")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# Tests see no calibration the user cached (pipewave-calibrate): the CPU
# target's default device is then the shipped cpu file.
config.environment["PIPEWAVE_CACHE_DIR"] = os.path.join(
    config.test_exec_root, "no-calibration-cache")
llvm_config.use_default_substitutions()
# FileCheck, not, count and split-file come from LLVM's tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.pipewave_tools_dir, append_path=True)

tool_dirs = [config.pipewave_tools_dir, config.llvm_tools_dir]
tools = ["pipewave-opt", "pipewave-import"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
