//===- pipewave-run.cpp - Launch a compiled model on N ranks --------------===//
//
// Part of the pipewave project.
//
//   pipewave-run [-n N] [-H HOSTS | --hostfile FILE] [--mpirun PATH]
//                [--bind-to none|core] [--mpi-arg ARG]... [--loopback]
//                [--dry-run] [-v] [--] BINARY [ARGS...]
//
// Runs
//   mpirun [--allow-run-as-root] [--oversubscribe] --bind-to POLICY -np N
//          [-H HOSTS] [--hostfile FILE] [ARG...] BINARY ARGS...
// and exits with mpirun's exit code. --allow-run-as-root is added when
// running as root, --oversubscribe when N exceeds the local cores and no
// hosts are given. POLICY is none unless --bind-to core asks to pin each rank
// to its own core (benchmarks; needs as many free cores as ranks). Without
// -n, N is what `BINARY --print-ranks` says. Started
// inside an MPI job already (mpirun, srun: Open MPI/PMI/PMIx variables set),
// it execs BINARY directly and joins that job. The mpirun used is --mpirun,
// else $PIPEWAVE_MPIRUN, else `mpirun` on PATH (Open MPI flags). A launch
// on this machine alone gives mpirun a session directory base of its own
// (OMPI_MCA_orte_tmpdir_base under $TMPDIR, removed afterwards; see
// ownSessionBase()), so that jobs started side by side do not race on a
// shared one.
//
// --loopback (or PW_BACKEND=loopback in the environment) runs every rank in
// one process instead, a thread per rank, without MPI: it execs BINARY
// with PW_BACKEND=loopback (docs/runtime.md).
//
// Supervision. Open MPI 4.1 (Debian 12) sometimes hangs or crashes in its
// own teardown (PMIx_server_finalize) after a job ended abnormally, although
// every rank has already exited. pipewave-run therefore waits for mpirun
// instead of exec'ing it, and watches mpirun's child processes in /proc:
// once they have all exited (zombies left unreaped) and mpirun is still
// there kGraceSeconds later, it kills mpirun and exits with the first
// failing rank's status (0 if they all succeeded). If mpirun dies of a
// signal, pipewave-run says so and exits 128 + the signal.
//
// Signals. SIGTERM, SIGINT and SIGHUP sent to pipewave-run go to the ranks
// (SIGHUP as SIGTERM), which they turn into a clean stop after the current step
// (with a checkpoint of it under --checkpoint-on-signal; docs/runtime.md);
// mpirun is signalled only if they are still running kStopSeconds later,
// or on a second signal. SIGQUIT is ignored here. A Ctrl-C at the terminal
// also reaches mpirun itself, which sends the ranks SIGTERM and SIGKILL
// after Open MPI's odls_base_sigkill_timeout (1 s by default).
//
//===----------------------------------------------------------------------===//

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <set>
#include <string>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kUsageExit = 2;

/// How long mpirun may linger after all its children have exited.
constexpr double kGraceSeconds = 5.0;
/// How long the ranks may take to stop after a forwarded signal.
constexpr double kStopSeconds = 30.0;

void usage(FILE *out) {
  std::fputs(
      "usage: pipewave-run [-n N] [-H HOSTS | --hostfile FILE] "
      "[--mpirun PATH]\n"
      "                    [--bind-to none|core] [--mpi-arg ARG]... "
      "[--loopback]\n"
      "                    [--dry-run] [-v] [--] BINARY [ARGS...]\n"
      "\n"
      "Runs a pipewave-compiled BINARY on N MPI ranks (mpirun -np N ...).\n"
      "  -n, -np N         number of ranks (default: BINARY --print-ranks)\n"
      "  -H, --host HOSTS  comma-separated hosts, passed to mpirun\n"
      "  --hostfile FILE   hostfile, passed to mpirun\n"
      "  --mpirun PATH     the mpirun to use (default $PIPEWAVE_MPIRUN or "
      "mpirun)\n"
      "  --bind-to POLICY  none (default: ranks float) or core (one core "
      "per rank)\n"
      "  --mpi-arg ARG     extra argument for mpirun (repeatable)\n"
      "  --loopback        run every rank in one process (a thread per "
      "rank), no MPI;\n"
      "                    also chosen by PW_BACKEND=loopback\n"
      "  --dry-run         print the command instead of running it\n"
      "  -v, --verbose     print the command before running it\n"
      "Arguments after BINARY go to the model (see BINARY --help).\n",
      out);
}

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "pipewave-run: %s\n", message.c_str());
  std::exit(kUsageExit);
}

bool insideLauncher() {
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name))
      return true;
  return false;
}

/// Physical cores this process may run on (what Open MPI counts as slots);
/// falls back to the online CPU count.
int localCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::set<std::string> cores;
  int cpus = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set))
      continue;
    ++cpus;
    std::string base =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream package(base + "physical_package_id"), core(base + "core_id");
    std::string p, c;
    if (!(package >> p) || !(core >> c))
      return cpus > 0 ? CPU_COUNT(&set) : 1;
    cores.insert(p + ":" + c);
  }
  return cores.empty() ? 1 : static_cast<int>(cores.size());
}

int parseCount(const std::string &text) {
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || value < 1 || value > 1 << 20)
    fail("expected a positive number of ranks, got '" + text + "'");
  return static_cast<int>(value);
}

/// Runs `binary --print-ranks` and returns the number it prints.
int ranksOf(const std::string &binary) {
  int pipeFds[2];
  if (pipe(pipeFds) != 0)
    fail("pipe failed: " + std::string(std::strerror(errno)));
  pid_t child = fork();
  if (child < 0)
    fail("fork failed: " + std::string(std::strerror(errno)));
  if (child == 0) {
    dup2(pipeFds[1], STDOUT_FILENO);
    close(pipeFds[0]);
    close(pipeFds[1]);
    execlp(binary.c_str(), binary.c_str(), "--print-ranks",
           static_cast<char *>(nullptr));
    std::fprintf(stderr, "pipewave-run: cannot run '%s': %s\n", binary.c_str(),
                 std::strerror(errno));
    _exit(127);
  }
  close(pipeFds[1]);
  std::string output;
  char buffer[256];
  ssize_t got;
  while ((got = read(pipeFds[0], buffer, sizeof(buffer))) > 0 ||
         (got < 0 && errno == EINTR))
    if (got > 0)
      output.append(buffer, static_cast<size_t>(got));
  close(pipeFds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("'" + binary +
         " --print-ranks' failed; is it a pipewave-compiled "
         "model? (give the number of ranks with -n N)");
  while (!output.empty() && (output.back() == '\n' || output.back() == ' '))
    output.pop_back();
  return parseCount(output);
}

std::string quoted(const std::string &arg) {
  if (!arg.empty() &&
      arg.find_first_of(" \t\n'\"\\$`*?!;&|<>()") == std::string::npos)
    return arg;
  std::string out = "'";
  for (char c : arg)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

double now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

/// mpirun's child processes as seen in /proc.
struct Children {
  int live = 0;
  int exited = 0;
  /// Wait status of the lowest-pid child that exited with a non-zero code,
  /// else of the lowest-pid one killed by a signal (mpirun kills the others
  /// once one fails), else 0.
  int firstFailure = 0;
  bool readable = false;
  /// The live ones.
  std::vector<pid_t> livePids;
};

/// The numeric entries of directory `path` ("/proc": every process).
std::vector<long> numericEntries(const std::string &path) {
  std::vector<long> numbers;
  DIR *dir = opendir(path.c_str());
  if (!dir)
    return numbers;
  while (dirent *entry = readdir(dir)) {
    char *end = nullptr;
    long number = std::strtol(entry->d_name, &end, 10);
    if (!*end && number > 0)
      numbers.push_back(number);
  }
  closedir(dir);
  return numbers;
}

/// The processes that may be `parent`'s children: those its threads list in
/// /proc/PID/task/TID/children (exited ones stay there until reaped), a few
/// files a check on a machine with any number of processes; where the
/// kernel has no such file, every process. Runs every 100 ms beside ranks
/// that may need every core: reading all of /proc each time would take a
/// core from one of them for a millisecond or more.
std::vector<long> candidateChildren(pid_t parent, bool &readable) {
  std::string tasks = "/proc/" + std::to_string(parent) + "/task";
  std::vector<long> candidates;
  bool listed = false;
  for (long task : numericEntries(tasks)) {
    std::ifstream file(tasks + "/" + std::to_string(task) + "/children");
    if (!file)
      continue;
    listed = true;
    for (long pid; file >> pid;)
      candidates.push_back(pid);
  }
  if (listed) {
    readable = true;
    return candidates;
  }
  candidates = numericEntries("/proc");
  readable = !candidates.empty();
  return candidates;
}

Children childrenOf(pid_t parent) {
  Children children;
  std::vector<long> candidates = candidateChildren(parent, children.readable);
  pid_t lowestExited = 0, lowestSignaled = 0;
  int exitedStatus = 0, signaledStatus = 0;
  for (long pid : candidates) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(file, stat))
      continue;
    // Fields after "pid (comm) ": state ppid ... ; exit_code is field 52.
    size_t paren = stat.rfind(')');
    if (paren == std::string::npos)
      continue;
    std::vector<std::string> fields;
    size_t pos = paren + 2;
    while (pos < stat.size()) {
      size_t space = stat.find(' ', pos);
      if (space == std::string::npos)
        space = stat.size();
      fields.push_back(stat.substr(pos, space - pos));
      pos = space + 1;
    }
    if (fields.size() < 2 || std::atol(fields[1].c_str()) != parent)
      continue;
    if (fields[0] != "Z" && fields[0] != "X") {
      ++children.live;
      children.livePids.push_back(static_cast<pid_t>(pid));
      continue;
    }
    ++children.exited;
    int status = fields.size() > 49 ? std::atoi(fields[49].c_str()) : 0;
    if (status == 0)
      continue;
    pid_t &lowest = WIFEXITED(status) ? lowestExited : lowestSignaled;
    if (lowest == 0 || pid < lowest) {
      lowest = static_cast<pid_t>(pid);
      (WIFEXITED(status) ? exitedStatus : signaledStatus) = status;
    }
  }
  children.firstFailure = exitedStatus ? exitedStatus : signaledStatus;
  return children;
}

int exitCodeOf(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 1;
}

volatile sig_atomic_t forwardedSignal = 0;

void onForwardedSignal(int sig) { forwardedSignal = sig; }

/// Runs `args` (mpirun ...) as a child and supervises it (see the header).
int supervise(std::vector<char *> &args) {
  struct sigaction ignore = {}, forward = {};
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = onForwardedSignal;
  struct sigaction oldInt, oldQuit;
  sigaction(SIGINT, &forward, &oldInt);
  sigaction(SIGQUIT, &ignore, &oldQuit);
  sigaction(SIGTERM, &forward, nullptr);
  sigaction(SIGHUP, &forward, nullptr);

  pid_t child = fork();
  if (child < 0)
    fail("fork failed: " + std::string(std::strerror(errno)));
  if (child == 0) {
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGQUIT, &oldQuit, nullptr);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    execvp(args[0], args.data());
    std::fprintf(stderr, "pipewave-run: cannot run '%s': %s\n", args[0],
                 std::strerror(errno));
    _exit(127);
  }

  bool sawRanks = false;
  double allExitedSince = -1;
  double stopAskedAt = -1;
  while (true) {
    int status = 0;
    pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) {
      if (WIFSIGNALED(status))
        std::fprintf(stderr, "pipewave-run: mpirun died of signal %d (%s)\n",
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
      return exitCodeOf(status);
    }
    if (done < 0 && errno != EINTR)
      fail("waitpid failed: " + std::string(std::strerror(errno)));
    Children children = childrenOf(child);
    if (forwardedSignal) {
      // The first one asks the ranks to stop cleanly; a second one, or
      // ranks not started yet, go to mpirun.
      if (stopAskedAt < 0 && !children.livePids.empty()) {
        std::fprintf(stderr,
                     "pipewave-run: %s: asking the ranks to stop after their "
                     "current step\n",
                     strsignal(forwardedSignal));
        int toRanks = forwardedSignal == SIGINT ? SIGINT : SIGTERM;
        for (pid_t rank : children.livePids)
          kill(rank, toRanks);
        stopAskedAt = now();
      } else {
        kill(child, SIGTERM);
      }
      forwardedSignal = 0;
    }
    if (stopAskedAt >= 0 && now() - stopAskedAt > kStopSeconds &&
        children.live > 0) {
      std::fprintf(stderr,
                   "pipewave-run: the ranks were still running %g s after "
                   "being asked to stop; ending the job\n",
                   kStopSeconds);
      kill(child, SIGTERM);
      stopAskedAt = now();
    }
    if (children.live > 0) {
      sawRanks = true;
      allExitedSince = -1;
    } else if (sawRanks && children.readable) {
      if (allExitedSince < 0) {
        allExitedSince = now();
      } else if (now() - allExitedSince > kGraceSeconds) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        int code = children.exited == 0 ? 1 : exitCodeOf(children.firstFailure);
        std::fprintf(stderr,
                     "pipewave-run: mpirun was still running %g s after all "
                     "its ranks had exited (an Open MPI teardown hang); "
                     "killed it; exit code %d\n",
                     kGraceSeconds, code);
        return code;
      }
    }
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
}

/// Open MPI 4's mpirun keeps its session directory in
/// <tmpdir>/ompi.<host>.<uid> (orte_tmpdir_base), which every job of the user
/// on the machine shares: when one job ends and removes it as another creates
/// its own entry in it, the other fails to start ("A call to mkdir was unable
/// to create the desired directory", open-mpi/ompi#8510). A local launch
/// therefore gets a base of its own under $TMPDIR (removed after mpirun exits),
/// unless the user set one. Returns it, or "" when none was made.
std::string ownSessionBase(const std::vector<std::string> &mpiArgs) {
  if (std::getenv("OMPI_MCA_orte_tmpdir_base"))
    return "";
  for (const std::string &arg : mpiArgs)
    if (arg.find("tmpdir_base") != std::string::npos)
      return "";
  const char *tmp = std::getenv("TMPDIR");
  std::string path =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/pipewave-run.XXXXXX";
  if (!mkdtemp(path.data()))
    return ""; // Open MPI's own place then, as before
  setenv("OMPI_MCA_orte_tmpdir_base", path.c_str(), 1);
  return path;
}

} // namespace

int main(int argc, char **argv) {
  int ranks = 0;
  std::string hosts, hostfile, binary, bindTo = "none";
  const char *envMpirun = std::getenv("PIPEWAVE_MPIRUN");
  std::string mpirun = envMpirun && *envMpirun ? envMpirun : "mpirun";
  std::vector<std::string> mpiArgs, modelArgs;
  bool dryRun = false, verbose = false;
  const char *envBackend = std::getenv("PW_BACKEND");
  bool loopback = envBackend && std::string(envBackend) == "loopback";

  int i = 1;
  auto value = [&](const std::string &option) -> std::string {
    if (i + 1 >= argc)
      fail(option + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-')
      break;
    if (arg == "-n" || arg == "-np" || arg == "--np")
      ranks = parseCount(value(arg));
    else if (arg.rfind("-n", 0) == 0 && arg.size() > 2 && arg[2] != 'p')
      ranks = parseCount(arg.substr(2));
    else if (arg == "-H" || arg == "--host")
      hosts = value(arg);
    else if (arg == "--hostfile")
      hostfile = value(arg);
    else if (arg == "--mpirun")
      mpirun = value(arg);
    else if (arg == "--bind-to") {
      bindTo = value(arg);
      if (bindTo != "none" && bindTo != "core")
        fail("--bind-to " + bindTo + ": expected none or core");
    } else if (arg == "--mpi-arg")
      mpiArgs.push_back(value(arg));
    else if (arg == "--loopback")
      loopback = true;
    else if (arg == "--dry-run")
      dryRun = true;
    else if (arg == "-v" || arg == "--verbose")
      verbose = true;
    else if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    } else
      fail("unknown option '" + arg + "' (see --help)");
  }
  if (i >= argc) {
    usage(stderr);
    return kUsageExit;
  }
  binary = argv[i++];
  for (; i < argc; ++i)
    modelArgs.push_back(argv[i]);

  std::vector<std::string> command;
  bool joinJob = loopback || (insideLauncher() && ranks == 0);
  if (loopback) {
    // Every rank in this one process: the binary's own rank count.
    if (!hosts.empty() || !hostfile.empty() || !mpiArgs.empty())
      fail("--loopback runs one process on this machine: -H, --hostfile and "
           "--mpi-arg do not apply");
    if (ranks != 0 && ranks != ranksOf(binary))
      fail("--loopback runs the " + std::to_string(ranksOf(binary)) +
           " ranks '" + binary + "' was compiled for, not -n " +
           std::to_string(ranks));
    setenv("PW_BACKEND", "loopback", 1);
    command.insert(command.end(), {"PW_BACKEND=loopback", binary});
  } else if (joinJob) {
    // Already one rank of a job: become the model.
    command.push_back(binary);
  } else {
    if (ranks == 0)
      ranks = ranksOf(binary);
    command.push_back(mpirun);
    if (geteuid() == 0)
      command.push_back("--allow-run-as-root");
    if (hosts.empty() && hostfile.empty() && ranks > localCores())
      command.push_back("--oversubscribe");
    command.insert(command.end(),
                   {"--bind-to", bindTo, "-np", std::to_string(ranks)});
    if (!hosts.empty())
      command.insert(command.end(), {"-H", hosts});
    if (!hostfile.empty())
      command.insert(command.end(), {"--hostfile", hostfile});
    command.insert(command.end(), mpiArgs.begin(), mpiArgs.end());
    command.push_back(binary);
  }
  command.insert(command.end(), modelArgs.begin(), modelArgs.end());

  if (dryRun || verbose) {
    std::string line;
    for (const std::string &arg : command)
      line += (line.empty() ? "" : " ") + quoted(arg);
    std::fprintf(dryRun ? stdout : stderr, "%s\n", line.c_str());
    if (dryRun)
      return 0;
    std::fflush(stderr);
  }
  if (loopback)
    command.erase(command.begin()); // Printed only: the variable is set.
  std::vector<char *> args;
  for (std::string &arg : command)
    args.push_back(arg.data());
  args.push_back(nullptr);
  if (!joinJob) {
    std::string sessionBase;
    if (hosts.empty() && hostfile.empty())
      sessionBase = ownSessionBase(mpiArgs);
    int status = supervise(args);
    if (!sessionBase.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(sessionBase, ignored);
    }
    return status;
  }
  execvp(args[0], args.data());
  std::fprintf(stderr, "pipewave-run: cannot run '%s': %s\n", args[0],
               std::strerror(errno));
  return 127;
}
