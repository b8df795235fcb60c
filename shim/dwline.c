// SPDX-License-Identifier: MIT
/*
 * The source file and line of a code address (printk-shim(7) DYNAMIC DEBUG):
 * libdw.so.1 is dlopen'ed the first time it is needed, never linked, so a
 * process whose queries name no file or line never loads it and the module
 * needs no elfutils; its few functions are declared here, with the
 * prototypes of <elfutils/libdwfl.h>. The process's objects are reported
 * once from /proc/self/maps, again when an address is in none of them
 * (an object dlopen'ed since). Only the DWARF inside each object is read:
 * no separate debug file, and never debuginfod, whose network requests
 * have no place inside a printk call.
 * Thread-safety: libdw's state is guarded by a mutex. A thread that finds
 * it taken by another waits for its lookup, a second at most; a signal
 * handler, and a forked child of a thread that held it, never wait: they
 * get PKS_DW_NOT_NOW, and the caller decides without file and line, and
 * does not keep that decision. libdw takes memory; this runs once per
 * call site, not once per call.
 */
#include "dwline.h"
#include "base/compiler.h"
#include "base/pid.h"
#include "base/say.h"
#include "base/show.h"
#include "config/config.h"
#include "ctx/signals.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct Dwfl Dwfl;
typedef struct Dwfl_Module Dwfl_Module;
typedef struct Dwfl_Line Dwfl_Line;
typedef uint64_t Dwarf_Addr;
typedef uint64_t Dwarf_Word;

typedef struct {		/* <elfutils/libdwfl.h> */
	void *find_elf, *find_debuginfo, *section_address;
	char **debuginfo_path;
} Dwfl_Callbacks;

static struct {
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	void (*report_begin)(Dwfl *);
	int (*maps_report)(Dwfl *, FILE *);
	int (*report_end)(Dwfl *, void *, void *);
	Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
	Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
	const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *,
				Dwarf_Word *);
	const char *(*comp_dir)(Dwfl_Line *);
	void *(*linecu)(Dwfl_Line *);		/* a Dwarf_Die *, opaque here */
	const char *(*diename)(void *);
} dw;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic pid_t holder;	/* the process that took it: a fork child's is its parent */

/*
 * The lock, where waiting for it can end: not in a handler (which may
 * have interrupted its holder), and not in a fork child born with it held.
 */
static bool take(void)
{
	struct timespec t;

	if (pks_sig_unwind_depth())
		return false;
	if (pthread_mutex_trylock(&lock)) {
		/* no pair: a pid, which only tells whose the lock was */
		if (atomic_load_explicit(&holder, memory_order_relaxed) != pks_pid())
			return false;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_sec++;
		if (pthread_mutex_timedlock(&lock, &t))
			return false;
	}
	/* no pair: as above, read by the next thread that finds the lock taken */
	atomic_store_explicit(&holder, pks_pid(), memory_order_relaxed);
	return true;
}

static Dwfl_Callbacks callbacks;
static Dwfl *dwfl;
static int state;		/* 0: not tried, 1: ready, -1: no libdw */

/* libdw's find_debuginfo callback: there is none besides the object itself. */
static int no_debuginfo(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr base,
			const char *file, const char *debuglink, uint32_t crc, char **found)
{
	(void)m, (void)user, (void)name, (void)base, (void)file, (void)debuglink, (void)crc;
	*found = NULL;
	return -1;
}

#define FN(name, field) { name, offsetof(__typeof__(dw), field) }

/*
 * What pks_dwline() may have to tell, each once, and only in a call a
 * query asked for (@loud): a lookup for runtime control's listing alone
 * says nothing, and the reason waits for a query that names file or line.
 */
enum { NO_LIBDW, NO_MAPS, NO_LINES, UNREADABLE, REASONS };
static char reason[REASONS][200] = {
	[NO_LINES] = "a KERN_DEBUG call comes from code without DWARF line information; "
		     "file and line match none of its calls",
	[UNREADABLE] = "in a setuid/setgid process, code in a file you cannot read has no "
		       "file and line; they match none of its calls",
};
static bool told[REASONS];

/* Reason @k, now that it holds, if @loud and not told yet. */
static void say(int k, bool loud)
{
	if (!loud || told[k] || !reason[k][0])
		return;
	told[k] = true;
	pks_warn("PRINTK_SHIM_DYNDBG: %s", reason[k]);
}

/* Every function, by name, into @dw; the callbacks libdw wants for a live process. */
static bool load(void)
{
	static const struct { const char *name; size_t at; } fns[] = {
		FN("dwfl_begin", begin), FN("dwfl_report_begin", report_begin),
		FN("dwfl_linux_proc_maps_report", maps_report), FN("dwfl_report_end", report_end),
		FN("dwfl_addrmodule", addrmodule), FN("dwfl_module_getsrc", getsrc),
		FN("dwfl_lineinfo", lineinfo), FN("dwfl_line_comp_dir", comp_dir),
		FN("dwfl_linecu", linecu), FN("dwarf_diename", diename),
	};
	void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL), *f;

	if (!h) {
		snprintf(reason[NO_LIBDW], sizeof(reason[NO_LIBDW]),
			 "file and line need libdw.so.1 (elfutils) for code built without "
			 "printk-shim's headers: %s; they match none of its calls", dlerror());
		return false;
	}
	for (size_t i = 0; i < PKS_ARRAY_SIZE(fns); i++) {
		if (!(f = dlsym(h, fns[i].name)))
			return false;
		memcpy((char *)&dw + fns[i].at, &f, sizeof(f));	/* a function pointer's bytes */
	}
	callbacks.find_elf = dlsym(h, "dwfl_linux_proc_find_elf");
	callbacks.find_debuginfo = (void *)no_debuginfo;
	callbacks.section_address = dlsym(h, "dwfl_offline_section_address");
	if (!callbacks.find_elf || !callbacks.find_debuginfo || !callbacks.section_address)
		return false;
	return (dwfl = dw.begin(&callbacks)) != NULL;
}

/*
 * The process's objects, as mapped now, from its maps: a set-ID process
 * may not open its own /proc/PID/auxv, which dwfl_linux_proc_report()
 * reads first (proc(5): a process that is not dumpable owns none of it).
 */
static bool report(void)
{
	FILE *maps = fopen("/proc/self/maps", "re");
	int r = maps ? 0 : errno;

	dw.report_begin(dwfl);
	if (maps) {
		r = dw.maps_report(dwfl, maps);
		fclose(maps);
	}
	if (r == 0 && dw.report_end(dwfl, NULL, NULL) == 0)
		return true;
	if (!reason[NO_MAPS][0])
		snprintf(reason[NO_MAPS], sizeof(reason[NO_MAPS]),
			 "file and line need the process's mappings (/proc/self/maps): %s; "
			 "they match none of its calls", r > 0 ? strerror(r) : "libdw could not read them");
	return false;
}

/*
 * Whether the DWARF of the object that holds @addr may be read for the
 * caller (pks_may_show()): in a set-ID process, only when the
 * caller could read the object's file, or a query could probe its source.
 */
static bool may_read(const void *addr)
{
	struct link_map *lm = NULL;
	char path[4096];
	ssize_t n;
	Dl_info di;

	if (!pks_config()->secure)
		return true;
	if (!dladdr1(addr, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return false;
	if (lm->l_name && lm->l_name[0])
		return pks_may_show(lm->l_name);
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);	/* the executable's is "" */
	if (n <= 0)
		return false;
	path[n] = '\0';
	return pks_may_show(path);
}

/*
 * @src as __FILE__ would name it: libdw puts the compilation directory
 * before a name that was relative to it, which only the unit's own name
 * tells (a build given relative paths); an absolute one stays.
 */
static const char *as_given(Dwfl_Line *l, const char *src)
{
	void *cu = dw.linecu(l);
	const char *name = cu ? dw.diename(cu) : NULL, *dir = dw.comp_dir(l);
	size_t k = dir ? strlen(dir) : 0;

	if (name && name[0] != '/' && k && !strncmp(src, dir, k) && src[k] == '/' && src[k + 1])
		return src + k + 1;
	return src;
}

/* The line table's file and line for @at in @m (NULL: none), the lock held. */
static bool source(Dwfl_Module *m, Dwarf_Addr at, char *file, size_t size, unsigned int *line)
{
	Dwfl_Line *l = m ? dw.getsrc(m, at) : NULL;
	int n = 0;
	const char *src = l ? dw.lineinfo(l, NULL, &n, NULL, NULL, NULL) : NULL;

	if (!src || n <= 0)
		return false;
	snprintf(file, size, "%s", as_given(l, src));
	*line = (unsigned int)n;
	return true;
}

/**
 * pks_dwline() - where the call that returns to @addr is in the source
 * @file: out, @size bytes: the file as the line table names it
 * @loud: a query names file or line: why it cannot be known is said, once
 * Return: PKS_DW_FOUND; PKS_DW_NONE when it cannot be known (no libdw, no
 * line table); PKS_DW_NOT_NOW when it cannot be looked up now.
 */
enum pks_dwline pks_dwline(const void *addr, char *file, size_t size, unsigned int *line,
			   bool loud)
{
	Dwarf_Addr at = (Dwarf_Addr)(uintptr_t)addr - 1;	/* inside the call */
	enum pks_dwline r = PKS_DW_NONE;
	Dwfl_Module *m;

	if (!take())
		return PKS_DW_NOT_NOW;
	if (!may_read(addr)) {
		say(UNREADABLE, loud);
		goto out;
	}
	if (!state)
		state = load() && report() ? 1 : -1;
	if (state < 0) {
		say(NO_LIBDW, loud);
		say(NO_MAPS, loud);
		goto out;
	}
	m = dw.addrmodule(dwfl, at);
	if (!m && !report())
		say(NO_MAPS, loud);
	else if (!m)
		m = dw.addrmodule(dwfl, at);
	if (source(m, at, file, size, line))
		r = PKS_DW_FOUND;
	else
		say(NO_LINES, loud);
out:
	pthread_mutex_unlock(&lock);
	return r;
}

/**
 * pks_dwline_loaded() - pks_dwline() for a diagnostic (the lint location):
 * only when a dynamic debug query has loaded libdw already, for an object
 * reported then; it never loads libdw, and says nothing when a line is not
 * found. Return: PKS_DW_FOUND, else PKS_DW_NOT_NOW.
 */
enum pks_dwline pks_dwline_loaded(const void *addr, char *file, size_t size, unsigned int *line)
{
	Dwarf_Addr at = (Dwarf_Addr)(uintptr_t)addr - 1;	/* inside the call */
	enum pks_dwline r = PKS_DW_NOT_NOW;

	if (!take())
		return PKS_DW_NOT_NOW;
	if (state > 0 && source(dw.addrmodule(dwfl, at), at, file, size, line))
		r = PKS_DW_FOUND;
	pthread_mutex_unlock(&lock);
	return r;
}
