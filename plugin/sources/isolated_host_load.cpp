// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/isolated_host_load.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "plugin/sources/host_json.h"

namespace numaplace::plugin {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kOutOfMemoryStatus = 6;

// AddressSanitizer reserves terabytes of address space for its shadow memory, so an address-space
// limit would stop a sanitizer build's child before it starts.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSpaceCanBeLimited = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSpaceCanBeLimited = false;
#else
constexpr bool kAddressSpaceCanBeLimited = true;
#endif
#else
constexpr bool kAddressSpaceCanBeLimited = true;
#endif

// The address space the child has mapped already (the parent's libraries and heap, inherited).
std::uint64_t mapped_bytes() {
  unsigned long long pages = 0;
  if (std::FILE* statm = std::fopen("/proc/self/statm", "re")) {
    if (std::fscanf(statm, "%llu", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

bool limits_apply(std::uint64_t memory_limit_bytes) { return memory_limit_bytes > 0 && kAddressSpaceCanBeLimited; }

// The child's whole life: load, answer on `fd`, leave without running the parent's atexit handlers.
[[noreturn]] void answer_in_child(const std::function<Result<HostTopology>()>& load, int fd, pid_t parent,
                                  std::uint64_t memory_limit_bytes) {
  // The child must not outlive the parent (a hook's time limit _exits it while it waits here), nor
  // hold the parent's stdout open after it: whoever reads that output waits for its end.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) _exit(5);
  if (const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC); null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::close(null);
  }
  // A loader asking for more memory than any topology needs fails its allocation instead of
  // leaving the machine to the OOM killer.
  // Never above a limit the caller already had (ulimit -v): only lower it.
  if (limits_apply(memory_limit_bytes)) {
    rlimit cap{};
    if (::getrlimit(RLIMIT_AS, &cap) == 0) {
      const rlim_t wanted = static_cast<rlim_t>(mapped_bytes() + memory_limit_bytes);
      if (cap.rlim_cur == RLIM_INFINITY || wanted < cap.rlim_cur) cap.rlim_cur = wanted;
      ::setrlimit(RLIMIT_AS, &cap);
    }
  }
  // A crash must end the child by its signal, whatever handlers the parent installed (a sanitizer's).
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
  std::string text;
  try {
    Result<HostTopology> host = load();
    nlohmann::json answer = host ? nlohmann::json{{"host", host_to_json(*host)}}
                                 : nlohmann::json{{"error", host.error().name}, {"message", host.error().message}};
    // A message may quote bytes that are not UTF-8 (a file name): replaced, not an exception.
    text = answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::bad_alloc&) {
    _exit(kOutOfMemoryStatus);
  } catch (...) {
    _exit(3);
  }
  std::size_t sent = 0;
  while (sent < text.size()) {
    ssize_t n = ::write(fd, text.data() + sent, text.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(4);
    sent += static_cast<std::size_t>(n);
  }
  _exit(0);
}

// Everything the child writes until it closes the pipe, or nullopt-like `timed_out` at the deadline.
std::string read_answer(int fd, Clock::time_point deadline, bool* timed_out) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      *timed_out = true;
      return text;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

bool child_memory_can_be_limited() { return kAddressSpaceCanBeLimited; }

Result<HostTopology> load_host_in_child(const std::function<Result<HostTopology>()>& load, const std::string& what,
                                        const std::string& failure_name, const std::string& remedy,
                                        std::chrono::milliseconds limit, std::uint64_t memory_limit_bytes) {
  const std::string then_remedy = remedy.empty() ? "" : "; " + remedy;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return make_error(failure_name, "cannot read " + what + ": no pipe for the reading process (" +
                                        std::strerror(errno) + ")");
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return make_error(failure_name, "cannot read " + what + ": cannot start the reading process (" +
                                        std::strerror(err) + ")");
  }
  if (child == 0) {
    ::close(fds[0]);
    answer_in_child(load, fds[1], parent, memory_limit_bytes);
  }
  ::close(fds[1]);
  bool timed_out = false;
  const std::string text = read_answer(fds[0], Clock::now() + limit, &timed_out);
  ::close(fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }

  if (timed_out) {
    return make_error(failure_name, "reading " + what + " did not finish within " + std::to_string(limit.count()) +
                                        " ms and was stopped" + then_remedy);
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const std::string how = sig == SIGKILL ? "was killed (signal 9, " + std::string(strsignal(sig)) +
                                                 ": out of memory, or by someone else)"
                                           : "crashed (signal " + std::to_string(sig) + ", " + strsignal(sig) +
                                                 ") inside the library that reads it";
    return make_error(failure_name, "reading " + what + " " + how + then_remedy);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemoryStatus) {
    const std::string how = limits_apply(memory_limit_bytes)
                                ? "needed more than its " + std::to_string(memory_limit_bytes >> 20) + " MiB of memory"
                                : "ran out of memory";
    return make_error(failure_name, "reading " + what + " " + how + " and was stopped" + then_remedy);
  }
  nlohmann::json answer = nlohmann::json::parse(text, nullptr, false);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !answer.is_object()) {
    return make_error(failure_name, "reading " + what + " ended without an answer (exit status " +
                                        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  const auto error = answer.find("error");
  const auto message = answer.find("message");
  if (error != answer.end() && error->is_string() && message != answer.end() && message->is_string()) {
    return make_error(error->get<std::string>(), message->get<std::string>());
  }
  if (!answer.contains("host")) {
    return make_error(failure_name, "reading " + what + " ended without an answer");
  }
  return host_from_json(answer["host"], what);
}

}  // namespace numaplace::plugin
