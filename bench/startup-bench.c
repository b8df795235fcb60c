// SPDX-License-Identifier: MIT
/*
 * startup-bench ROUNDS MODULE WRAPPER: what the shim adds to starting a
 * program. Each round spawns and waits for /bin/true three ways, in turn:
 * bare, with LD_PRELOAD=MODULE, and as "WRAPPER -- /bin/true"; prints the
 * median wall ns of each as "true=... preload=... wrapper=..." and the
 * median CPU ns its process used (user and system, from wait4) as
 * "true_cpu=..." and so on.
 */
#include "bench.h"

#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define ROUNDS_MAX 4096

extern char **environ;

/* Our environment without LD_PRELOAD, plus @extra. */
static char **clean_env(char *extra)
{
	size_t n = 0, k = 0;
	char **e;

	while (environ[n])
		n++;
	e = calloc(n + 2, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			e[k++] = environ[i];
	if (extra)
		e[k++] = extra;
	return e;
}

/* Return: ns from spawning @argv to reaping it; its CPU time goes to *@cpu. */
static uint64_t spawn(char **argv, char **envp, uint64_t *cpu)
{
	uint64_t t0 = bench_now();
	struct rusage ru;
	pid_t pid;
	int st;

	*cpu = 0;
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, envp))
		return 0;
	if (wait4(pid, &st, 0, &ru) < 0)
		return 0;
	*cpu = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	static uint64_t t[3][ROUNDS_MAX], cpu[3][ROUNDS_MAX];
	static const char *const names[3] = { "true", "preload", "wrapper" };
	char preload[4096];
	long rounds = bench_arg(argc == 4 ? argv[1] : NULL, 200);
	char *bare[] = { "/bin/true", NULL };
	char *wrapped[] = { argc == 4 ? argv[3] : NULL, "--", "/bin/true", NULL };
	char **args[3] = { bare, bare, wrapped }, **envs[3];
	uint64_t ignored;

	if (argc != 4) {
		printf("usage: startup-bench ROUNDS MODULE WRAPPER\n");
		return 2;
	}
	rounds = rounds > ROUNDS_MAX ? ROUNDS_MAX : rounds;
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", argv[2]);
	envs[0] = envs[2] = clean_env(NULL);
	envs[1] = clean_env(preload);
	for (int i = 0; i < 30; i++)
		spawn(args[i % 3], envs[i % 3], &ignored);
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 3; k++) {
			int v = (int)((r + k) % 3);

			t[v][r] = spawn(args[v], envs[v], &cpu[v][r]);
		}
	}
	for (int v = 0; v < 3; v++)
		printf("%s=%llu %s_cpu=%llu ", names[v],
		       (unsigned long long)bench_median(t[v], (size_t)rounds), names[v],
		       (unsigned long long)bench_median(cpu[v], (size_t)rounds));
	printf("\n");
	return 0;
}
