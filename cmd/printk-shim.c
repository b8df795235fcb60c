// SPDX-License-Identifier: MIT
/*
 * printk-shim, the wrapper: turns its options into PRINTK_SHIM_* variables
 * (one option per variable, validated by the same parsers the module uses),
 * puts the module in front of LD_PRELOAD once (behind an ASan runtime that
 * leads it), and execs the command, so its PID, signals and exit status are
 * the command's own. It exits 125 for its own errors, 126 when the command
 * cannot be run, 127 when it is not found. It never looks for the module in
 * the current directory.
 */
#include "config/vars.h"
#include "core/ddquery.h"
#include "elf/elf.h"
#include "cmd/inspect.h"
#include "cmd/control.h"
#include "cmd/dyndbg-list.h"
#include "cmd/quote.h"
#include "cmd/shrunk.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MODULE_NAME "libprintk-shim.so"

/*
 * --enable-multiarch-lib: the installed module goes into LD_PRELOAD under
 * PKS_MULTIARCH_DIR, with a literal $LIB that the dynamic linker expands for
 * each program it starts; the copy for the wrapper's own class is the one in
 * PKS_PKGLIBDIR.
 */
#ifdef PKS_MULTIARCH_DIR
#define INSTALLED_MODULE PKS_MULTIARCH_DIR "/" MODULE_NAME
#else
#define INSTALLED_MODULE PKS_PKGLIBDIR "/" MODULE_NAME
#endif

enum { EXIT_USAGE = 125, EXIT_CANNOT_RUN = 126, EXIT_NOT_FOUND = 127 };

static const char *prog = "printk-shim";

/* One line on stderr: "printk-shim: [KIND: ]..."; values in it go through pks_quote(). */
static void say(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s%s", prog, kind, *kind ? ": " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static __attribute__((format(printf, 1, 2)))
void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning", fmt, ap);
	va_end(ap);
}

static __attribute__((noreturn, format(printf, 2, 3)))
void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
	exit(code);
}

/* Whether @opt's output reached stdout whole; exits 125 saying why not. */
static void flushed(const char *opt)
{
	if (fflush(stdout) || ferror(stdout))	/* errno: the failed write's, a later one's the same */
		die(EXIT_USAGE, "%s: writing the output: %s", opt, strerror(errno ? errno : EIO));
}

static void usage(void)
{
	printf("Usage: %s [OPTION]... [--] COMMAND [ARG]...\n"
	       "Run COMMAND with the printk shim preloaded: its printk fragments are\n"
	       "joined into whole lines and written once, at their level.\n\n", prog);
	for (size_t i = 0; i < pks_nvars; i++) {
		const struct pks_var *v = &pks_vars[i];
		char opt[64];
		size_t j;

		for (j = 0; v->name[j] && j < sizeof(opt) - 1; j++)
			opt[j] = v->name[j] == '_' ? '-' : (char)(v->name[j] | 0x20);
		opt[j] = '\0';
		if (v->boolean)
			printf("  --%s, --no-%s\n", opt, opt);
		else
			printf("  --%s=%s\n", opt, v->expect);
		printf("      %s (PRINTK_SHIM_%s, default %s)\n", v->help, v->name, v->dflt);
	}
	printf("  --index BINARY...  print the printk index of each BINARY and exit\n"
	       "  --check BINARY...  say whether each BINARY's printk calls reach the shim\n"
	       "  --dyndbg-list [--dyndbg=QUERIES] BINARY...\n"
	       "      print the dynamic debug call sites of each BINARY built with\n"
	       "      printk-shim's headers, with the flags --dyndbg gives them, and exit\n"
	       "  --lib          print the module's path and exit\n"
	       "  --print-env    print export lines for eval and exit\n"
	       "  --help, -h     print this help and exit\n"
	       "  --version, -v  print the version and exit\n\n"
	       "A running process (printk-shim(1) RUNTIME CONTROL), its user's or root's:\n"
	       "  printk-shim --pid=PID[,PID...] | --all [--level=L] [--dyndbg=QUERIES]\n"
	       "              [--reopen] [--flush]      change it, or with none of them list it\n"
	       "  printk-shim --dmesg --pid=PID [--format=FORMAT]\n"
	       "              print its record buffer (--record), also after it died\n\n"
	       "PRINTK_SHIM_LIB overrides the module's path. Exit status: COMMAND's, or\n"
	       "125 for the wrapper's own errors, 126 if COMMAND cannot be run, 127 if\n"
	       "it is not found.\n");
	flushed("--help");
	exit(0);
}

/* "--no-time" -> "TIME" with *value "0"; "--line-max=5" -> "LINE_MAX", "5". */
static const struct pks_var *option(const char *arg, const char **value, bool *has_value)
{
	char name[64];
	const char *eq = strchr(arg, '='), *p = arg + 2;
	size_t n = eq ? (size_t)(eq - p) : strlen(p);
	bool no = n > 3 && !strncmp(p, "no-", 3);
	const struct pks_var *v;

	if (n >= sizeof(name))
		return NULL;
	for (size_t i = 0; i < n; i++)
		name[i] = p[i] == '-' ? '_' : (p[i] >= 'a' && p[i] <= 'z' ? (char)(p[i] - 32) : p[i]);
	name[n] = '\0';
	if (!strcmp(name, "SYMBOL"))	/* --symbol=NAME, once per function */
		strcpy(name, "SYMBOLS");
	*has_value = eq != NULL;
	*value = eq ? eq + 1 : NULL;
	v = pks_var_find(name);
	if (!v && no) {
		/* --no-NAME only for an on/off variable, and with no value */
		if (!(v = pks_var_find(name + 3)) || !v->boolean || eq)
			return NULL;
		*value = "0";
		*has_value = true;
		return v;
	}
	if (v && v->boolean && !eq) {
		*value = "1";
		*has_value = true;
	}
	return v;
}

/*
 * The path of the first "file:" item of an output list that is not
 * absolute, copied into @buf; NULL if there is none. confparse.c refuses
 * such an item along with every other malformed one.
 */
static const char *relative_file(const char *list, char *buf, size_t size)
{
	for (const char *p = list; ; p++) {
		size_t n = strcspn(p, ",");

		if (n > 5 && !strncmp(p, "file:", 5) && p[5] != '/') {
			snprintf(buf, size, "%.*s", (int)(n - 5), p + 5);
			return buf;
		}
		p += n;
		if (!*p)
			return NULL;
	}
}

/* "--opt=value" as the user wrote it, or as "--opt value" meant it; escaped. */
static const char *shown(const char *arg, const char *value)
{
	char buf[4096];

	if (strchr(arg, '='))
		return pks_quote(arg);
	if (snprintf(buf, sizeof(buf), "%s=%s", arg, value) >= (int)sizeof(buf))
		strcpy(buf + sizeof(buf) - 4, "...");
	return pks_quote(buf);
}

/* Exit 125 for a value that @v's parser refused, with what was wrong with it. */
static __attribute__((noreturn))
void refuse(const struct pks_var *v, const char *arg, const char *value)
{
	char path[PKS_PATH_MAX];
	const char *rel;

	if (!strcmp(v->name, "OUTPUT") && (rel = relative_file(value, path, sizeof(path))))
		die(EXIT_USAGE, "%s: the path '%s' must be absolute; nothing is run", shown(arg, value),
		    pks_quote(rel));
	die(EXIT_USAGE, "%s: expected %s; nothing is run", shown(arg, value), v->expect);
}

/*
 * @list, which parsed into @s, without the items that repeat an earlier one
 * (stdout and fd:1 are one), into @buf. Each line would be written to a
 * repeated output twice. Return: whether an item was left out.
 */
static bool drop_repeats(const struct pks_settings *s, const char *list, char *buf, size_t size)
{
	const char *p = list;
	size_t len = 0;
	bool dropped = false;

	buf[0] = '\0';
	for (int i = 0; i < s->noutputs; p += strcspn(p, ",") + 1, i++) {
		int j = 0;

		while (j < i && !pks_outspec_same(&s->outputs[j], &s->outputs[i]))
			j++;
		if (j < i)
			dropped = true;
		else if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%.*s", len ? "," : "",
						(int)strcspn(p, ","), p);
	}
	return dropped;
}

/*
 * Repeated --symbol and --dyndbg options add up, joined by @sep (a list's
 * comma, a query's semicolon); the first replaces the environment's.
 * Return: @value, or the whole in @all of @size bytes.
 */
static const char *add_up(const struct pks_var *v, const char *value, char *all, size_t size)
{
	static int seen[2];
	int k = !strcmp(v->name, "SYMBOLS") ? 0 : !strcmp(v->name, "DYNDBG") ? 1 : -1;
	char name[80];
	const char *was;

	if (k < 0 || !*value || !seen[k]++)
		return value;
	snprintf(name, sizeof(name), "PRINTK_SHIM_%s", v->name);
	was = getenv(name);
	if (!was)
		return value;
	if ((size_t)snprintf(all, size, "%s%c%s", was, k ? ';' : ',', value) >= size)
		die(EXIT_USAGE, "--%s: the repeated options add up to more than %zu bytes; nothing is run",
		    k ? "dyndbg" : "symbol", size - 1);
	return all;
}

/* pks_dd_parse()'s report of a bad query in --dyndbg=@arg: the module would skip it. */
static void bad_query(void *arg, const char *q, size_t n, const char *why)
{
	char query[PKS_DD_POOL];

	snprintf(query, sizeof(query), "%.*s", (int)n, q);
	die(EXIT_USAGE, "%s: '%s': %s; nothing is run", (const char *)arg, pks_quote(query), why);
}

static void set_var(const struct pks_var *v, const char *arg, const char *value)
{
	static struct pks_dd_rules rules;	/* large: off the stack */
	struct pks_settings s;
	char name[80], all[4096], once[PKS_OUTPUTS_MAX * (PKS_PATH_MAX + 8)];
	const char *given = value;

	value = add_up(v, value, all, sizeof(all));
	pks_settings_default(&s);
	if (*value && v->parse(&s, value))
		refuse(v, arg, value);
	if (!strcmp(v->name, "DYNDBG"))
		pks_dd_parse(&rules, value, bad_query, (void *)shown(arg, given));
	if (!strcmp(v->name, "OUTPUT") && *value && drop_repeats(&s, value, once, sizeof(once))) {
		warn("%s: an output is listed more than once; using %s", shown(arg, value), pks_quote(once));
		value = once;
	}
	snprintf(name, sizeof(name), "PRINTK_SHIM_%s", v->name);
	setenv(name, value, 1);
}

static bool bad_path(const char *p)
{
	return p[0] != '/' || strpbrk(p, ": \t\n") != NULL;
}

/*
 * access(2) as the exec and the dynamic linker check it, with the
 * effective IDs: a caller whose real ones differ is no one else here.
 */
static bool can(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0;
}

/*
 * A wrapper run from its build tree uses the module built beside it. The
 * tree is told by its config.status, so an installed wrapper (which embeds
 * no build path) never looks there.
 */
static bool build_tree(const char *self, char *buf, size_t size)
{
	const char *slash = strrchr(self, '/');
	int dir = (int)(slash - self);

	snprintf(buf, size, "%.*s/config.status", dir, self);
	if (!can(buf, F_OK))
		return false;
	snprintf(buf, size, "%.*s/shim/.libs/%s", dir, self, MODULE_NAME);
	return can(buf, R_OK);
}

/*
 * Where execvp() would run @cmd from: the first file of that name in PATH
 * (glibc's "/bin:/usr/bin" without one) that is a regular file we may
 * execute, into @buf. *@denied tells whether one was there but was not.
 * Return: the path, or NULL.
 */
static const char *lookup(const char *cmd, char *buf, size_t size, bool *denied)
{
	const char *path = getenv("PATH");
	struct stat st;

	*denied = false;
	if (strchr(cmd, '/'))
		return cmd;
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path; *cmd; p += strcspn(p, ":") + 1) {
		size_t n = strcspn(p, ":");

		/* an empty entry is the current directory */
		if ((size_t)snprintf(buf, size, "%.*s/%s", n ? (int)n : 1, n ? p : ".", cmd) < size &&
		    stat(buf, &st) == 0) {
			if (S_ISREG(st.st_mode) && can(buf, X_OK))
				return buf;
			*denied = true;
		}
		if (!p[n])
			break;
	}
	return NULL;
}

static const char *argv0;	/* main()'s argv[0], for self_path() */

/*
 * The wrapper's own file, into @buf of PATH_MAX bytes: /proc/self/exe, or
 * where /proc is not mounted, the file its argv[0] names, looked up in PATH
 * as the shell that ran it did.
 * Return: @buf, or NULL.
 */
static const char *self_path(char *buf)
{
	char found[PATH_MAX];
	const char *path;
	bool denied;

	if (realpath("/proc/self/exe", buf))
		return buf;
	if (!argv0 || !*argv0 || !(path = lookup(argv0, found, sizeof(found), &denied)))
		return NULL;
	return realpath(path, buf);
}

/* The module next to this wrapper: in the build tree, installed, or under DESTDIR. */
static const char *module_path(void)
{
	static char buf[PATH_MAX + sizeof(PKS_PKGLIBDIR) + sizeof(MODULE_NAME) + 2];
	const char *env = getenv("PRINTK_SHIM_LIB");
	const char *tail = PKS_BINDIR "/printk-shim";
	char self[PATH_MAX];
	size_t n, t = strlen(tail);

	if (env && *env)
		return env;
	if (!self_path(self))
		return INSTALLED_MODULE;
	if (build_tree(self, buf, sizeof(buf)))
		return buf;
	n = strlen(self);
	if (n > t && !strcmp(self + n - t, tail)) {
		snprintf(buf, sizeof(buf), "%.*s%s/%s", (int)(n - t), self, PKS_PKGLIBDIR, MODULE_NAME);
		if (can(buf, R_OK))
			return buf;
	}
	return INSTALLED_MODULE;
}

/*
 * @m as the dynamic linker reads it for a program of the wrapper's own class:
 * in a multiarch build, $LIB or ${LIB} is what it means here, the part of
 * PKS_PKGLIBDIR that PKS_MULTIARCH_DIR leaves to the linker (configure
 * checked that they agree). Elsewhere @m is taken as it is.
 */
static const char *own_class(const char *m, char *buf, size_t size)
{
#ifdef PKS_MULTIARCH_DIR
	static const char dir[] = PKS_MULTIARCH_DIR, real[] = PKS_PKGLIBDIR;
	size_t head = (size_t)(strstr(dir, "$LIB") - dir), tail = strlen(dir) - head - 4;
	const char *tok = strstr(m, "$LIB");
	size_t n = 4;

	if (!tok && (tok = strstr(m, "${LIB}")))
		n = 6;
	if (tok && strlen(real) > head + tail) {
		snprintf(buf, size, "%.*s%.*s%s", (int)(tok - m), m,
			 (int)(strlen(real) - head - tail), real + head, tok + n);
		return buf;
	}
#endif
	(void)buf;
	(void)size;
	return m;
}

/* The module as it goes into LD_PRELOAD, and as a program of the wrapper's class loads it. */
struct module {
	const char *preload;
	const char *file;	/* the same as @preload, but in a multiarch build */
};

static struct module checked_module(void)
{
	static char buf[PATH_MAX];
	struct module mod = { module_path(), NULL };
	struct stat st;

	mod.file = own_class(mod.preload, buf, sizeof(buf));
	if (bad_path(mod.preload))
		die(EXIT_USAGE, "module path '%s' must be absolute, without ':' or blanks; nothing is run",
		    pks_quote(mod.preload));
	if (!can(mod.file, R_OK)) {
		const char *why = strerror(errno);

		die(EXIT_USAGE, "module '%s' not found: %s; nothing is run", pks_quote(mod.file), why);
	}
	/* the dynamic linker ignores a directory with a warning, and the command runs unwatched */
	if (!stat(mod.file, &st) && S_ISDIR(st.st_mode))
		die(EXIT_USAGE, "module '%s' is a directory: expected a shared object; nothing is run",
		    pks_quote(mod.file));
	return mod;
}

/*
 * AddressSanitizer's runtimes refuse to start a program unless they come
 * first in the initial library list (printk-shim(1) SANITIZERS).
 */
static const char *const asan_runtimes[] = { "libasan.so", "libclang_rt.asan" };

/* Whether the LD_PRELOAD entry or soname @s, of @n bytes, is one of asan_runtimes[]. */
static bool is_asan(const char *s, size_t n)
{
	for (size_t i = n; i > 0; i--) {
		if (s[i - 1] == '/') {	/* its file name */
			s += i;
			n -= i;
			break;
		}
	}
	for (size_t i = 0; i < sizeof(asan_runtimes) / sizeof(asan_runtimes[0]); i++) {
		size_t k = strlen(asan_runtimes[i]);

		if (n >= k && !memcmp(s, asan_runtimes[i], k))
			return true;
	}
	return false;
}

/* Set @name to the first @n bytes of @a, a colon, @b and @c. */
static void set_joined(const char *name, const char *a, size_t n, const char *b, const char *c)
{
	size_t size = n + strlen(b) + strlen(c) + 2;
	char *v = malloc(size);

	if (!v)
		die(EXIT_USAGE, "%s", strerror(errno));
	snprintf(v, size, "%.*s:%s%s", (int)n, a, b, c);
	setenv(name, v, 1);
	free(v);
}

/*
 * Put @m in front of LD_PRELOAD, after an ASan runtime that leads it,
 * unless it is already one of its entries.
 */
static void preload(const char *m)
{
	const char *old = getenv("LD_PRELOAD"), *p = old;
	size_t n = strlen(m), lead = 0, k;

	for (bool leading = true; p && *p; p += k) {
		p += strspn(p, ": ");
		k = strcspn(p, ": ");
		if (k == n && !strncmp(p, m, n))
			return;
		if (leading && k && is_asan(p, k))
			lead = (size_t)(p + k - old);
		else if (k)
			leading = false;
	}
	if (!old || !*old) {
		setenv("LD_PRELOAD", m, 1);
		return;
	}
	if (lead)	/* the rest starts with its separator, or is empty */
		set_joined("LD_PRELOAD", old, lead, m, old + lead);
	else
		set_joined("LD_PRELOAD", m, n, old, "");
}

/* Whether LD_PRELOAD's first entry is an ASan runtime, which then comes before the module. */
static bool asan_leads(void)
{
	const char *pre = getenv("LD_PRELOAD");

	if (!pre)
		return false;
	pre += strspn(pre, ": ");
	return *pre && is_asan(pre, strcspn(pre, ": "));
}

/*
 * Whether @im names an ASan runtime (DT_NEEDED): a program built with gcc
 * -fsanitize=address, or clang's -shared-libasan.
 */
static bool names_asan(struct pks_elf_image *im)
{
	uint64_t strtab = 0, needed[64];
	unsigned n = pks_elf_dynamic_all(im, DT_NEEDED, needed, 64);
	const char *name;

	pks_elf_dynamic(im, DT_STRTAB, &strtab);
	for (unsigned i = 0; i < n; i++)
		if ((name = pks_elf_string(im, strtab + needed[i])) && is_asan(name, strlen(name)))
			return true;
	return false;
}

/*
 * The ASan runtime behind the module is told not to check its place
 * (verify_asan_link_order=0), unless ASAN_OPTIONS says otherwise; see
 * printk-shim(1) SANITIZERS for why not the runtime in front.
 */
static void asan_options(void)
{
	const char *old = getenv("ASAN_OPTIONS"), *flag = "verify_asan_link_order=0";

	if (!old || !*old)
		setenv("ASAN_OPTIONS", flag, 1);
	else if (!strstr(old, "verify_asan_link_order"))
		set_joined("ASAN_OPTIONS", old, strlen(old), flag, "");
}

static void quote(const char *name, const char *v)
{
	printf("export %s='", name);
	for (; *v; v++)
		if (*v == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*v);
	puts("'");
}

static void print_env(void)
{
	char name[80];

	for (size_t i = 0; i < pks_nvars; i++) {
		const char *v;

		snprintf(name, sizeof(name), "PRINTK_SHIM_%s", pks_vars[i].name);
		if ((v = getenv(name)))
			quote(name, v);
	}
	quote("LD_PRELOAD", getenv("LD_PRELOAD"));
	flushed("--print-env");
	exit(0);
}

/* Exit as execv() failing with @err on @cmd says: 127 if it is not there, else 126. */
static __attribute__((noreturn))
void cannot_run(const char *cmd, int err)
{
	die(err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN, "%s: %s", pks_quote(cmd), strerror(err));
}

/* lookup(), or exit as execvp() fails: 126 when only a file we may not run is there, else 127. */
static const char *find(const char *cmd, char *buf, size_t size)
{
	bool denied;
	const char *path = lookup(cmd, buf, size, &denied);

	if (path)
		return path;
	if (denied)
		cannot_run(cmd, EACCES);
	die(EXIT_NOT_FOUND, "%s: command not found", pks_quote(cmd));
	return NULL;
}

/* Is @st this wrapper itself (printk-shim -- printk-shim -- cmd)? It may be static. */
static bool is_self(const struct stat *st)
{
	char path[PATH_MAX];
	struct stat me;

	return self_path(path) && stat(path, &me) == 0 && me.st_dev == st->st_dev &&
	       me.st_ino == st->st_ino;
}

/* What the dynamic linker looks at in a program and in an object to preload. */
struct elf {
	unsigned char cls;		/* e_ident[EI_CLASS] */
	bool msb;			/* big-endian */
	unsigned int type, machine;	/* e_type, e_machine */
	bool interp;			/* PT_INTERP: started by a dynamic linker */
	bool pie;			/* DF_1_PIE: an executable, never preloaded */
	bool asan;			/* it names an ASan runtime (names_asan()) */
	bool hidden_san;		/* it links a sanitizer runtime it does not export (hidden_san()) */
	bool cut;			/* a PT_LOAD's bytes run past the file's end (loads_fit()) */
};

/*
 * Whether @im links a sanitizer runtime in (gcc's -static-libasan,
 * -static-libtsan, -static-libubsan) without exporting its interface, so
 * that the module's weak references to it stay unresolved: its .symtab
 * defines the runtime's death callback, its .dynsym does not.
 */
static bool hidden_san(const struct pks_elf_image *im)
{
	static const char cb[] = "__sanitizer_set_death_callback";
	struct pks_elf_symbol sym;

	return pks_elf_symbol(im, false, cb, &sym) && sym.shndx != SHN_UNDEF &&
	       !(pks_elf_symbol(im, true, cb, &sym) && sym.shndx != SHN_UNDEF);
}

/*
 * Whether each PT_LOAD's bytes lie whole in the file: the dynamic linker
 * maps them without looking, and a module cut short kills every command
 * with SIGBUS, unexplained.
 */
static bool loads_fit(const struct pks_elf_image *im)
{
	struct pks_elf_seg s;

	for (unsigned i = 0; pks_elf_seg_at(im, i, &s); i++)
		if (s.type == PT_LOAD && !s.bytes)
			return false;
	return true;
}

/*
 * The ELF and program headers of the file at @path and its dynamic
 * section's DT_FLAGS_1 and DT_NEEDED, read by elf/elf.c without blocking.
 * Return: 0, or pks_elf_open()'s error: -ENOEXEC, PKS_ELF_CORRUPT,
 * PKS_ELF_NOT_REGULAR (a FIFO is no program) or one of open(2).
 */
static int elf_read(const char *path, struct elf *e)
{
	struct pks_elf_image im;
	uint64_t flags1 = 0;
	int err = pks_elf_open_loadable(&im, path);

	if (err)
		return err;
	*e = (struct elf){
		.cls = im.cls, .msb = im.msb, .type = im.type, .machine = im.machine,
		.interp = pks_elf_has_segment(&im, PT_INTERP),
		.pie = pks_elf_dynamic(&im, DT_FLAGS_1, &flags1) && (flags1 & DF_1_PIE),
		.asan = names_asan(&im),
		.hidden_san = hidden_san(&im),
		.cut = !loads_fit(&im),
	};
	pks_elf_close(&im);
	return 0;
}

/*
 * The set-ID bit of @st ('u' or 'g', else 0) that will make the kernel
 * start @path with AT_SECURE, so that the dynamic linker ignores
 * LD_PRELOAD: it does when the effective user or group the program gets
 * is not the caller's real one. Root running a set-user-ID-root program
 * keeps its IDs and is interposed. A set-group-ID file without group
 * execute permission (the mandatory-locking mark), and any set-ID file on
 * a nosuid mount or under no_new_privs, changes no ID. File capabilities
 * ('c') do the same for any caller but root, who holds them already; a
 * caller whose own real and effective IDs differ ('i'), for any file.
 */
static int secure_bit(const char *path, const struct stat *st)
{
	struct statvfs fs;

	/* the kernel makes any exec by a caller whose IDs differ a secure one */
	if (getuid() != geteuid() || getgid() != getegid())
		return 'i';
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ||
	    (statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID)))
		return 0;
	if ((st->st_mode & S_ISUID) && st->st_uid != getuid())
		return 'u';
	if ((st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) && st->st_gid != getgid())
		return 'g';
	if (getuid() != 0 && pks_inspect_caps(path))
		return 'c';
	return 0;
}

/* "a 64-bit x86-64 KIND" for what @e says, into @buf. */
static const char *describe(char *buf, size_t size, const struct elf *e, const char *kind)
{
	static const struct { unsigned int em; const char *name; } names[] = {
		{ EM_386, "i386" }, { EM_X86_64, "x86-64" }, { EM_ARM, "arm" },
		{ EM_AARCH64, "aarch64" }, { EM_RISCV, "riscv" }, { EM_PPC, "ppc" },
		{ EM_PPC64, "ppc64" }, { EM_S390, "s390" }, { EM_MIPS, "mips" },
	};
	char other[24];
	const char *name = other;

	snprintf(other, sizeof(other), "machine %u", e->machine);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].em == e->machine)
			name = names[i].name;
	snprintf(buf, size, "a %d-bit%s %s %s", e->cls == ELFCLASS64 ? 64 : 32,
		 e->msb ? " big-endian" : "", name, kind);
	return buf;
}

static const char *kind(const struct elf *e)
{
	switch (e->type) {
	case ET_DYN:
		return e->pie ? "position-independent executable" : "shared object";
	case ET_EXEC:
		return "executable";
	case ET_REL:
		return "relocatable object";
	}
	return "ELF file";
}

/*
 * Whether elf_read()'s @err says the file could not be read at all (no
 * read permission, an I/O error), rather than read and found not to be
 * an ELF program: then nothing is known of it.
 */
static bool unread(int err)
{
	return err && err != -ENOEXEC && err != PKS_ELF_CORRUPT && err != PKS_ELF_NOT_REGULAR;
}

static bool same_target(const struct elf *a, const struct elf *b)
{
	return a->cls == b->cls && a->msb == b->msb && a->machine == b->machine;
}

/* Whether the dynamic linker preloads a module that is @e for a program like @target (NULL: any). */
static bool fits(const struct elf *e, const struct elf *target)
{
	return e->type == ET_DYN && !e->pie && !e->cut && (!target || same_target(e, target));
}

/*
 * Exit 125 unless the dynamic linker would preload @mod rather than ignore
 * it and start the command unwatched, with status 0: it must be a shared
 * object, not an executable, and of the class and machine of @target, the
 * command when that is a dynamic program. A script or a static program may
 * start programs of any class, and in a multiarch build a program of
 * another class than the wrapper's loads another file than the one checked
 * here: then only the first rule holds.
 */
static void check_module(const struct module *mod, const struct elf *target, const char *cmd,
			 const char *undone)
{
	char found[160], want[96];
	struct elf e;
	int err = elf_read(mod->file, &e);
	bool elf = !err;

	if (unread(err))
		return;	/* the dynamic linker says so itself */
	if (target && mod->file != mod->preload && !(elf && same_target(&e, target)))
		target = NULL;
	if (elf && fits(&e, target))
		return;
	if (elf)
		describe(found, sizeof(found), &e, kind(&e));
	if (elf && e.cut)
		strcat(found, " cut short (its segments run past the end of the file)");
	die(EXIT_USAGE, "module '%s' is %s: expected %s for %s; %s", pks_quote(mod->file),
	    elf ? found : err == PKS_ELF_CORRUPT ? pks_elf_strerror(err) : "not an ELF file",
	    target ? describe(want, sizeof(want), target, "shared object") : "a shared object",
	    pks_quote(cmd), undone);
}

/*
 * --check's look at the module (pks_inspect_misfit): check_module()'s
 * rules for the dynamic program or the library at @path, said rather than
 * refused (a library is loaded by programs of its class); a module that
 * cannot be read, which the wrapper refuses too, is said so. NULL when it
 * fits, or when @path cannot be told.
 */
static const char *misfit(const char *path, char *buf, size_t size)
{
	static char own[PATH_MAX];
	struct module mod = { module_path(), NULL };
	struct elf target, e;
	int err;

	mod.file = own_class(mod.preload, own, sizeof(own));
	if (elf_read(path, &target))
		return NULL;
	if ((err = elf_read(mod.file, &e))) {
		snprintf(buf, size, "'%s' (%s)", pks_quote(mod.file),
			 err == -ENOEXEC ? "not an ELF file" : pks_elf_strerror(err));
		return buf;
	}
	if (mod.file != mod.preload && !same_target(&e, &target))
		return NULL;	/* a program of another class loads another file */
	if (fits(&e, &target))
		return NULL;
	return describe(buf, size, &e, kind(&e));
}

/*
 * check_module() for @opt, which prints the module for a program of the
 * wrapper's own class: the wrapper's class and machine, when its own file
 * can be read, stand for the command's.
 */
static void check_own(const struct module *mod, const char *opt)
{
	struct elf self;
	char me[PATH_MAX];

	check_module(mod, self_path(me) && !elf_read(me, &self) ? &self : NULL, opt,
		     "nothing is printed");
}

/*
 * Warn where LD_PRELOAD cannot take effect (set-ID programs, and static
 * ones with a printk), and refuse a module that the dynamic linker would ignore.
 * Return: whether the program names an ASan runtime (names_asan()).
 */
static bool inspect(const char *path, const char *cmd, const struct module *mod)
{
	struct stat st;
	struct elf e;
	bool elf;
	int bit, err;

	if (stat(path, &st) != 0)
		return false;
	if ((bit = secure_bit(path, &st)) == 'i')
		warn("this command runs with real and effective IDs that differ: the dynamic linker ignores LD_PRELOAD for %s, so printk will not be interposed",
		     pks_quote(cmd));
	else if (bit == 'c')
		warn("%s has file capabilities: the dynamic linker ignores LD_PRELOAD for it, so printk will not be interposed",
		     pks_quote(cmd));
	else if (bit)
		warn("%s is set-%s-ID: the dynamic linker ignores LD_PRELOAD for it, so printk will not be interposed",
		     pks_quote(cmd), bit == 'u' ? "user" : "group");
	elf = !(err = elf_read(path, &e));
	/* execute permission without read (mode 111): the kernel runs what no one else may read */
	if (unread(err))
		warn("%s cannot be read (%s): its class and its printk are not checked; it is run all the same",
		     pks_quote(cmd), pks_elf_strerror(err));
	if (elf && e.interp && e.hidden_san)
		warn("%s links a sanitizer runtime statically (gcc's -static-libasan, -static-libtsan or -static-libubsan) "
		     "and exports none of it: the lines open at a fatal report are lost, and ThreadSanitizer "
		     "reports the module's own work; build it with the shared runtime",
		     pks_quote(cmd));
	/* a static program without a printk of its own has nothing to take over */
	if (elf && !e.interp && !is_self(&st) && pks_inspect_may_printk(path))
		warn("%s is statically linked: printk cannot be interposed", pks_quote(cmd));
	check_module(mod, elf && e.interp ? &e : NULL, cmd, "nothing is run");
	return elf && e.asan;
}

/*
 * Tell the module which process the wrapper ran, its own pid kept across
 * exec, so that the exit warning of a program no printk call reached comes
 * from that process only, not from each child that inherits the variables.
 */
static void mark_wrapped(void)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("PRINTK_SHIM_WRAPPED", pid, 1);
}

/*
 * A file the kernel would not start (no #! line, no ELF header) run by
 * /bin/sh, as execvp(3) runs it: the shell gets its path and the arguments.
 * Return: only when that exec failed too, errno set.
 */
static void shell(const char *path, char **argv)
{
	size_t n = 0;
	char **sh;

	while (argv[n])
		n++;
	if (!(sh = malloc((n + 2) * sizeof(*sh))))
		return;
	sh[0] = (char *)"/bin/sh";
	sh[1] = (char *)path;
	memcpy(sh + 2, argv + 1, n * sizeof(*sh));	/* and the NULL */
	execv(sh[0], sh);
	free(sh);
}

static void run(char **argv, const struct module *mod)
{
	char buf[PATH_MAX];
	const char *path = find(argv[0], buf, sizeof(buf));

	if (!can(path, X_OK))
		cannot_run(argv[0], errno);
	if (inspect(path, argv[0], mod) && !asan_leads())
		asan_options();
	mark_wrapped();
	execv(path, argv);
	if (errno == ENOEXEC)
		shell(path, argv);
	cannot_run(argv[0], errno);
}

/*
 * Whether the legacy "<N>" markers are markers, as the module reads them:
 * yes, unless PRINTK_SHIM_LEGACY_MARKERS says no; a value the module would
 * refuse is said, and the default kept, as the module does.
 */
static bool legacy_markers(void)
{
	const struct pks_var *v = pks_var_find("LEGACY_MARKERS");
	const char *val = getenv("PRINTK_SHIM_LEGACY_MARKERS");
	struct pks_settings s;

	pks_settings_default(&s);
	if (val && *val && v->parse(&s, val))	/* empty: unset, as everywhere */
		fprintf(stderr, "printk-shim: PRINTK_SHIM_LEGACY_MARKERS=%s: expected %s; using %s\n",
			pks_quote(val), v->expect, v->dflt);
	return s.legacy_markers;
}

/*
 * --index or --check @opt over the @n files @paths: the whole run. Options
 * end at "--" (printk-shim(1) DESCRIPTION), here as before a command.
 */
static int read_files(const char *opt, char *const *paths, int n)
{
	int rc;

	if (n > 0 && !strcmp(paths[0], "--")) {
		paths++;
		n--;
	}
	if (n == 0)
		die(EXIT_USAGE, "%s: expected one or more BINARY, got none; nothing is done (see --help)", opt);
	pks_shrunk_watch();
	rc = opt[2] == 'i' ? pks_inspect_index(paths, n, stdout, legacy_markers()) :
			     pks_inspect_check(paths, n, stdout, legacy_markers(), misfit);
	flushed(opt);
	return rc;
}

/* Options are long, but for -h and -v; any other word starts the command. */
static bool is_option(const char *arg)
{
	return !strncmp(arg, "--", 2) || !strcmp(arg, "-h") || !strcmp(arg, "-v");
}

int main(int argc, char **argv)
{
	struct module mod;
	bool print = false, list = false;
	int i, rc;

	argv0 = argv[0];
	if (pks_control_wanted(argc, argv))
		return pks_control(argc, argv);	/* a running process, not a command */
	for (i = 1; i < argc && is_option(argv[i]); i++) {
		const struct pks_var *v;
		const char *value, *opt = argv[i];
		bool has;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			usage();
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-v")) {
			printf("printk-shim %s\n", PACKAGE_VERSION);
			flushed(argv[i]);
			return 0;
		}
		if (!strcmp(argv[i], "--lib")) {
			mod = checked_module();
			check_own(&mod, argv[i]);
			puts(mod.file);	/* a path to open, $LIB expanded */
			flushed(argv[i]);
			return 0;
		}
		if (!strcmp(argv[i], "--index") || !strcmp(argv[i], "--check"))
			return read_files(argv[i], argv + i + 1, argc - i - 1);
		if (!strcmp(argv[i], "--dyndbg-list")) {
			list = true;	/* the options after it too, then its binaries */
			continue;
		}
		if (!strcmp(argv[i], "--print-env")) {
			print = true;
			continue;
		}
		if (!strcmp(argv[i], "--dmesg") || !strcmp(argv[i], "--reopen") ||
		    !strcmp(argv[i], "--flush"))
			die(EXIT_USAGE, "%s: expected --pid=PID%s; nothing is done", argv[i],
			    strcmp(argv[i], "--dmesg") ? " or --all" : "");
		if (!(v = option(argv[i], &value, &has)))
			die(EXIT_USAGE, "unknown option '%s'; nothing is run (see --help)", pks_quote(argv[i]));
		if (!has) {
			if (i + 1 >= argc)
				die(EXIT_USAGE, "%s needs a value: %s; nothing is run", pks_quote(argv[i]), v->expect);
			value = argv[++i];
		}
		set_var(v, opt, value);
	}
	if (list && print)
		die(EXIT_USAGE, "--dyndbg-list and --print-env: expected one of them; nothing is done");
	if (list) {
		if (i >= argc)
			die(EXIT_USAGE, "--dyndbg-list: expected one or more BINARY, got none; nothing is done (see --help)");
		pks_shrunk_watch();
		rc = pks_ddlist(argv + i, argc - i, getenv("PRINTK_SHIM_DYNDBG"), warn);
		flushed("--dyndbg-list");
		return rc;
	}
	if (print && i < argc)
		die(EXIT_USAGE, "--print-env: expected no command, got '%s'; nothing is run", pks_quote(argv[i]));
	mod = checked_module();
	preload(mod.preload);
	if (print) {
		check_own(&mod, "--print-env");
		print_env();
	}
	if (i >= argc)
		die(EXIT_USAGE, "expected a command to run, got none; nothing is run (see --help)");
	run(argv + i, &mod);
	return EXIT_CANNOT_RUN;
}
