//===- TestHooks.h - Test-only fault injection ------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Private to the runtime library. The fault tests need a compiled model to
// fail at points no input can reach; these hooks do it, driven by
// environment variables that are a test-only contract (docs/runtime.md,
// "Test-only environment"). They are compiled in only when the build option
// PIPEWAVE_RUNTIME_TEST_HOOKS is ON (the default, as the test suite needs
// them); with it OFF every hook is an empty inline function.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_LIB_TESTHOOKS_H
#define PIPEWAVE_RUNTIME_LIB_TESTHOOKS_H

#include <cstdint>
#include <string>

namespace pipewave::runtime {

class Backend;

namespace testhooks {

#if PW_RUNTIME_TEST_HOOKS
/// PW_TEST_CRASH_BEFORE_MANIFEST=N: rank 0 says so and _exit(1)s after the
/// rank files of step N's checkpoint and before its manifest.
void beforeManifest(const Backend *backend, int64_t step);
/// PW_TEST_FAIL_RANK=R with PW_TEST_FAIL_STEP=K (default 1): rank R throws
/// an Error before step K of this run, as a rank whose stage code failed.
void beforeStep(int rank, int64_t step);
/// PW_TEST_NO_SPACE=TEXT: writing a file whose path contains TEXT fails
/// with ENOSPC, as on a full disk.
bool noSpaceFor(const std::string &path);
/// PW_TEST_PERTURB_COPY=NAME@R: rank R flips the lowest bit of the first
/// byte of its copy of shared parameter NAME before a checkpoint (the
/// copies then differ).
void perturbCopy(int rank, const std::string &name, void *data);
#else
inline void beforeManifest(const Backend *, int64_t) {}
inline void beforeStep(int, int64_t) {}
inline bool noSpaceFor(const std::string &) { return false; }
inline void perturbCopy(int, const std::string &, void *) {}
#endif

} // namespace testhooks

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_LIB_TESTHOOKS_H
