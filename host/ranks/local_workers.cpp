#include "ranks/local_workers.h"

#include "ranks/rank_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace pypto_golden::ranks {

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

std::string describe_worker_end(const WorkerEnd& end) {
  const std::string where = end.machine.empty() ? "" : "on " + end.machine + ", through `" + end.launcher + "`, ";
  std::string text = "rank " + std::to_string(end.rank) + " (" + where + "pid " + std::to_string(end.pid) +
                     " on this machine) " + describe_wait_status(end.status);
  if (WIFEXITED(end.status) && WEXITSTATUS(end.status) == kWorkerOutOfMemory)
    text += ": its memory guard stopped it, out of memory (its message is above)";
  return text;
}

namespace {

// `name` as execvp would find it on PATH (a launcher such as ssh), found before fork as
// execvp is not async-signal-safe; a name with a slash, or one found nowhere, as it is.
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (name.find('/') != std::string::npos || path == nullptr) return name;
  std::string dirs = path;
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

}  // namespace

LocalWorkers::LocalWorkers(const std::vector<WorkerCommand>& commands) : commands_(commands) {
  const pid_t host = getpid();
  for (size_t r = 0; r < commands_.size(); ++r) {
    // Everything the child needs is built before fork: after it, only async-signal-safe
    // calls (this process has other threads).
    std::vector<std::string> args = commands_[r].argv;
    const std::string executable = on_path(args.front());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int error_pipe[2];
    if (pipe2(error_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
    const pid_t pid = fork();
    if (pid == 0) {
      // The worker ends with the host, however the host ends (the thread that forks is the
      // run's, which lives as long as the host process's run).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != host) _exit(127);
      execv(executable.c_str(), argv.data());
      const int e = errno;
      (void)!write(error_pipe[1], &e, sizeof e);
      _exit(127);
    }
    close(error_pipe[1]);
    int exec_errno = 0;
    const ssize_t got = pid < 0 ? 0 : read(error_pipe[0], &exec_errno, sizeof exec_errno);
    close(error_pipe[0]);
    if (pid < 0 || got == static_cast<ssize_t>(sizeof exec_errno)) {
      const int e = pid < 0 ? errno : exec_errno;
      if (pid > 0) waitpid(pid, nullptr, 0);
      finish(std::chrono::milliseconds(0));
      throw std::runtime_error("cannot start the worker of rank " + std::to_string(r) + " (" + executable +
                               "): " + std::strerror(e));
    }
    pids_.push_back(pid);
  }
}

LocalWorkers::~LocalWorkers() { finish(std::chrono::milliseconds(0)); }

std::optional<WorkerEnd> LocalWorkers::reap_ended() {
  for (size_t r = 0; r < pids_.size(); ++r) {
    if (pids_[r] == 0) continue;
    int status = 0;
    if (waitpid(pids_[r], &status, WNOHANG) == pids_[r]) {
      WorkerEnd end{static_cast<int>(r), pids_[r], status, commands_[r].machine, commands_[r].launcher};
      pids_[r] = 0;
      return end;
    }
  }
  return std::nullopt;
}

void LocalWorkers::check_running() {
  if (std::optional<WorkerEnd> end = reap_ended()) throw std::runtime_error(describe_worker_end(*end));
}

std::vector<WorkerEnd> LocalWorkers::finish(std::chrono::milliseconds grace) {
  std::vector<WorkerEnd> ended;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    while (std::optional<WorkerEnd> e = reap_ended()) ended.push_back(*e);
    bool running = false;
    for (pid_t p : pids_) running = running || p != 0;
    if (!running || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (size_t r = 0; r < pids_.size(); ++r) {
    if (pids_[r] == 0) continue;
    kill(pids_[r], SIGKILL);
    int status = 0;
    while (waitpid(pids_[r], &status, 0) < 0 && errno == EINTR) {
    }
    ended.push_back(WorkerEnd{static_cast<int>(r), pids_[r], status, commands_[r].machine, commands_[r].launcher});
    pids_[r] = 0;
  }
  std::sort(ended.begin(), ended.end(), [](const WorkerEnd& a, const WorkerEnd& b) { return a.rank < b.rank; });
  return ended;
}

}  // namespace pypto_golden::ranks
