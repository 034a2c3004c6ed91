/* Wall time of a whole process, as its parent sees it: posix_spawn, then waitpid, RUNS times;
 * prints the median and the minimum. No interpreter in the loop (bench/time_to_answer.sh
 * measures through Python's subprocess, which adds its own fork). stdout and stderr go to
 * /dev/null; a run that exits non-zero stops the measurement.
 * Build: cc -O2 -o /tmp/spawn_wall bench/spawn_wall.c
 * Usage: /tmp/spawn_wall RUNS PROGRAM [ARGS...]   (PROGRAM is a path, not looked up in PATH) */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char** environ;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 3 || atoi(argv[1]) < 1) {
    fprintf(stderr, "usage: %s RUNS PROGRAM [ARGS...]\n", argv[0]);
    return 2;
  }
  const int runs = atoi(argv[1]);
  double* wall = malloc((size_t)runs * sizeof *wall);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  for (int i = 0; i < runs; ++i) {
    const double t = now_s();
    pid_t pid;
    if (posix_spawn(&pid, argv[2], &fa, NULL, argv + 2, environ) != 0) {
      perror(argv[2]);
      return 2;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    wall[i] = now_s() - t;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "%s: run %d ended with status %d\n", argv[2], i, status);
      return 1;
    }
  }
  qsort(wall, (size_t)runs, sizeof *wall, by_value);
  printf("median %.2f ms min %.2f ms\n", wall[runs / 2] * 1e3, wall[0] * 1e3);
  return 0;
}
