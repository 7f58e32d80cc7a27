/* wait-policy.c: nanobragg's OpenMP threads sleep when they wait, unless the
 * user chose otherwise.
 *
 * The program renders in one parallel region and then writes its files on
 * one thread, and it is often run many times in a row (a shell loop, a
 * pipeline, a test suite).  libgomp's threads spin by default when they wait
 * (GOMP_SPINCOUNT, 300,000 pauses: milliseconds), and where the kernel puts
 * the worker thread a parallel region creates on the CPU of the thread that
 * creates it, as Linux 6.18 on the 2-vCPU development VM does when the CPUs
 * were busy a moment before, the creator spins in libgomp's start barrier
 * until its time slice ends while the worker waits behind it.  Measured there
 * (docs/performance.md, "The CLI process"), the same 1024^2 single-precision
 * run 60 times in a row: median 8.5-9.4 ms spinning (quartiles up to 17 ms),
 * 5.2-5.9 ms with OMP_WAIT_POLICY=passive exported.
 *
 * libgomp reads the policy only from the environment, in its constructor,
 * before main(): a setenv() in main() is too late, and one from the
 * executable's pre-initialisation array (which the dynamic loader runs before
 * any library's constructor) is undone when libc's own initialisation sets
 * the environment back to the one the kernel gave.  So the pre-initialisation
 * function executes the program again, once, with OMP_WAIT_POLICY=passive
 * added to that environment: nothing of the program has run yet (no
 * library constructor, no file opened), the process keeps its ID, standard
 * streams and arguments, and the second start costs about 0.75 ms there
 * (the run above: 6.1-6.8 ms median, quartiles within 0.6 ms).  An exported OMP_WAIT_POLICY (any value)
 * or GOMP_SPINCOUNT is left alone and nothing is executed again, as with one
 * thread (OMP_NUM_THREADS=1 or one CPU allowed: nobody waits) and under
 * valgrind (which would run the second start outside itself); if the
 * execution fails the program goes on as it is, with libgomp's default.
 *
 * GCC's libgomp only: LLVM's libomp reads its settings at their first use
 * and blocks after 200 ms of spinning (KMP_BLOCKTIME), and other compilers
 * and systems are left as they are. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && defined(__ELF__) &&          \
    defined(_OPENMP)

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

enum
{
  MAX_ENV = 4096 /* entries copied on the stack; a larger environment is left as it is */
};

extern void _start (void); /* the program's entry point (crt1.o) */

static void
wait_policy_passive (int argc, char **argv, char **envp)
{
  static char passive[] = "OMP_WAIT_POLICY=passive";
  /* the path the program was started with, relative to the same working folder */
  const char *self = (const char *) getauxval (AT_EXECFN);
  cpu_set_t cpus;
  size_t n = 0;

  (void) argc;
  /* Started as "ld.so nanobragg ...", glibc's loader gives the program's own
   * AT_EXECFN and entry point; a loader that left the kernel's would name
   * itself, and its entry point is not this program's. */
  if (self == NULL || getauxval (AT_ENTRY) != (unsigned long) (uintptr_t) &_start)
    return;
  for (; envp[n] != NULL; n++)
    if (strncmp (envp[n], "OMP_WAIT_POLICY=", 16) == 0 ||
        strncmp (envp[n], "GOMP_SPINCOUNT=", 15) == 0 ||
        /* one thread: nobody waits (a cluster's many single-thread jobs) */
        strcmp (envp[n], "OMP_NUM_THREADS=1") == 0 ||
        /* under valgrind, which would run the second start outside itself */
        (strncmp (envp[n], "LD_PRELOAD=", 11) == 0 && strstr (envp[n], "vgpreload") != NULL))
      return;
  if (n >= MAX_ENV || (sched_getaffinity (0, sizeof cpus, &cpus) == 0 && CPU_COUNT (&cpus) == 1))
    return;
  {
    char *env[n + 2];

    memcpy (env, envp, n * sizeof *env);
    env[n] = passive;
    env[n + 1] = NULL;
    execve (self, argv, env);
  }
}

__attribute__ ((section (".preinit_array"), used)) static void (*const preinit_wait_policy) (
    int, char **, char **) = wait_policy_passive;

#else
/* ISO C wants a translation unit to declare something */
typedef int nb_wait_policy_unused;
#endif
