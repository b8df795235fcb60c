// SPDX-License-Identifier: MIT
/*
 * startup-bench ROUNDS MODULE WRAPPER: what the shim adds to starting a
 * program. Each round spawns and waits for /bin/true three ways, in turn:
 * bare, with LD_PRELOAD=MODULE, and as "WRAPPER -- /bin/true"; prints the
 * median ns of each as "true=... preload=... wrapper=...".
 */
#include "bench.h"

#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define ROUNDS_MAX 4096

extern char **environ;

static char **env_plain, **env_preload;

/* Our environment without LD_PRELOAD and PRINTK_SHIM_*, plus @extra. */
static char **clean_env(char *extra)
{
	size_t n = 0, k = 0;
	char **e;

	while (environ[n])
		n++;
	e = calloc(n + 2, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "PRINTK_SHIM_", 12))
			e[k++] = environ[i];
	if (extra)
		e[k++] = extra;
	return e;
}

/* Return: ns from spawning @argv to reaping it. */
static uint64_t spawn(char **argv, char **envp)
{
	uint64_t t0 = bench_now();
	pid_t pid;
	int st;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, envp))
		return 0;
	waitpid(pid, &st, 0);
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	static uint64_t t[3][ROUNDS_MAX];
	static char *names[3] = { "true", "preload", "wrapper" };
	char preload[4096];
	long rounds = bench_arg(argc == 4 ? argv[1] : NULL, 200);
	char *bare[] = { "/bin/true", NULL };
	char *wrapped[] = { argc == 4 ? argv[3] : NULL, "--", "/bin/true", NULL };

	if (argc != 4) {
		printf("usage: startup-bench ROUNDS MODULE WRAPPER\n");
		return 2;
	}
	rounds = rounds > ROUNDS_MAX ? ROUNDS_MAX : rounds;
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", argv[2]);
	env_plain = clean_env(NULL);
	env_preload = clean_env(preload);
	for (int i = 0; i < 10; i++) {
		spawn(bare, env_plain);
		spawn(bare, env_preload);
		spawn(wrapped, env_plain);
	}
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 3; k++) {
			int v = (int)((r + k) % 3);

			if (v == 0)
				t[v][r] = spawn(bare, env_plain);
			else if (v == 1)
				t[v][r] = spawn(bare, env_preload);
			else
				t[v][r] = spawn(wrapped, env_plain);
		}
	}
	for (int v = 0; v < 3; v++)
		printf("%s%s=%llu", v ? " " : "", names[v],
		       (unsigned long long)bench_median(t[v], (size_t)rounds));
	printf("\n");
	return 0;
}
