/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* peak_rss_probe PROGRAM [ARG...]: runs PROGRAM with its stdout on /dev/null and prints
   "EXIT_CODE PEAK_RSS_KIB" of that child (wait4's rusage). A small C launcher, because
   a forked child's peak RSS starts from its parent's: measured from a Python process,
   every figure would carry the interpreter's ~10 MiB. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: peak_rss_probe PROGRAM [ARG...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("peak_rss_probe: fork");
    return 2;
  }
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    execv(argv[1], argv + 1);
    perror("peak_rss_probe: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) {
    perror("peak_rss_probe: wait4");
    return 2;
  }
  printf("%d %ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), usage.ru_maxrss);
  return 0;
}
