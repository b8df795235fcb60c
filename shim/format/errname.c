// SPDX-License-Identifier: MIT
/*
 * Error names for %pe, as the kernel's lib/errname.c gives them with
 * CONFIG_SYMBOLIC_ERRNAME: "-EINVAL" for ERR_PTR(-EINVAL). Where two names
 * share a number the kernel's choice is kept (EAGAIN, not EWOULDBLOCK;
 * EOPNOTSUPP, not ENOTSUP; EDEADLK). The kernel-internal codes from 512 up
 * are listed by number, since no userspace header has them. Unknown
 * numbers have no name; the caller prints them in decimal.
 *
 * Thread-safety: read-only tables.
 */
#include "format/internal.h"

#include <errno.h>

#define E(e)	[e] = "-" #e

static const char *const names_0[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG),
	E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH), E(ENOCSI),
	E(EL2HLT), E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC),
	E(EBADSLT), E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR),
	E(ENONET), E(ENOPKG), E(EREMOTE), E(ENOLINK), E(EADV), E(ESRMNT),
	E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT), E(EBADMSG),
	E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC),
	E(ELIBBAD), E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ),
	E(ERESTART), E(ESTRPIPE), E(EUSERS), E(ENOTSOCK), E(EDESTADDRREQ),
	E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT),
	E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT),
	E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH),
	E(ENETRESET), E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS), E(EISCONN),
	E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS), E(ETIMEDOUT),
	E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY),
	E(EINPROGRESS), E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL),
	E(EISNAM), E(EREMOTEIO), E(EDQUOT), E(ENOMEDIUM), E(EMEDIUMTYPE),
	E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED), E(EKEYREVOKED),
	E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE),
#ifdef ERFKILL
	E(ERFKILL),
#endif
#ifdef EHWPOISON
	E(EHWPOISON),
#endif
};

#undef E
#define E(e, n)	[(n) - 512] = "-" #e

/* include/linux/errno.h: never seen by userspace, so by number */
static const char *const names_512[] = {
	E(ERESTARTSYS, 512), E(ERESTARTNOINTR, 513), E(ERESTARTNOHAND, 514),
	E(ENOIOCTLCMD, 515), E(ERESTART_RESTARTBLOCK, 516),
	E(EPROBE_DEFER, 517), E(EOPENSTALE, 518), E(ENOPARAM, 519),
	E(EBADHANDLE, 521), E(ENOTSYNC, 522), E(EBADCOOKIE, 523),
	E(ENOTSUPP, 524), E(ETOOSMALL, 525), E(ESERVERFAULT, 526),
	E(EBADTYPE, 527), E(EJUKEBOX, 528), E(EIOCBQUEUED, 529),
	E(ERECALLCONFLICT, 530),
};

#undef E

#define COUNT(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * pks_fmt_errname() - the name of a negative error number
 * Return: "-EINVAL" for -EINVAL; NULL when the kernel has no name for it.
 */
const char *pks_fmt_errname(int err)
{
	unsigned int e = err < 0 ? -(unsigned int)err : (unsigned int)err;

	if (e < COUNT(names_0))
		return names_0[e];
	if (e >= 512 && e - 512 < COUNT(names_512))
		return names_512[e - 512];
	return NULL;
}
