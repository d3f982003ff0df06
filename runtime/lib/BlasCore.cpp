//===- BlasCore.cpp - OpenBLAS kernels for CPUs it does not know ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/BlasCore.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>

namespace pipewave::runtime {

namespace {

/// The newest vector instructions a set of OpenBLAS kernels uses.
enum class Level { Sse, Avx, Avx2, Avx512 };

/// OpenBLAS's x86-64 core names (lower case) by the instructions their
/// kernels use; a name not here is one this runtime does not judge.
std::optional<Level> coreLevel(std::string_view core) {
  std::string name(core);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  static const char *const sse[] = {
      "katmai", "coppermine", "northwood",    "prescott",   "banias",
      "atom",   "core2",      "penryn",       "dunnington", "nehalem",
      "athlon", "opteron",    "opteron_sse3", "barcelona",  "bobcat",
      "nano",   "unknown"};
  static const char *const avx[] = {"sandybridge", "bulldozer", "piledriver",
                                    "steamroller"};
  static const char *const avx2[] = {"haswell", "zen", "excavator"};
  static const char *const avx512[] = {"skylakex", "cooperlake",
                                       "sapphirerapids"};
  auto in = [&](const auto &names) {
    return std::find(std::begin(names), std::end(names), name) !=
           std::end(names);
  };
  if (in(sse))
    return Level::Sse;
  if (in(avx))
    return Level::Avx;
  if (in(avx2))
    return Level::Avx2;
  if (in(avx512))
    return Level::Avx512;
  return std::nullopt;
}

} // namespace

CpuVectorIsa hostVectorIsa() {
  CpuVectorIsa isa;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  isa.avx2Fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  isa.avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  isa.avx512Bf16 = isa.avx512 && __builtin_cpu_supports("avx512bf16");
#endif
  return isa;
}

std::optional<std::string> betterOpenBlasCore(std::string_view core,
                                              const CpuVectorIsa &isa) {
  std::optional<Level> level = coreLevel(core);
  if (!level || *level >= Level::Avx2 || !isa.avx2Fma)
    return std::nullopt;
  if (isa.avx512)
    return std::string(isa.avx512Bf16 ? "Cooperlake" : "SkylakeX");
  return std::string("Haswell");
}

const char *openBlasCoreName() {
  using Text = char *(*)();
  auto coreName =
      reinterpret_cast<Text>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return coreName ? coreName() : nullptr;
}

void restartForBetterBlasKernels(char **argv) {
  const char *forced = std::getenv("OPENBLAS_CORETYPE");
  if ((forced && *forced) || !argv || !argv[0])
    return;
  // Only a DYNAMIC_ARCH build reads the variable.
  using Text = char *(*)();
  auto config =
      reinterpret_cast<Text>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  const char *configText = config ? config() : nullptr;
  const char *core = openBlasCoreName();
  if (!configText || !std::strstr(configText, "DYNAMIC_ARCH") || !core)
    return;
  std::optional<std::string> better = betterOpenBlasCore(core, hostVectorIsa());
  if (!better)
    return;
  if (setenv(kOpenBlasOwnCoreVariable, core, 1) == 0 &&
      setenv("OPENBLAS_CORETYPE", better->c_str(), 1) == 0)
    execv("/proc/self/exe", argv);
  // No restart (no /proc, say): go on with the kernels OpenBLAS chose, and
  // say so truthfully.
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kOpenBlasOwnCoreVariable);
}

} // namespace pipewave::runtime
