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

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# FileCheck, not, count and split-file come from LLVM's tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.pipewave_tools_dir, append_path=True)

tool_dirs = [config.pipewave_tools_dir, config.llvm_tools_dir]
tools = ["pipewave-opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
