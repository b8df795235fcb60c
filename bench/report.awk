# SPDX-License-Identifier: MIT
# bench/report.awk: the samples of one bench/run.sh into the table (stdout)
# and the CSV (-v csv=FILE, one figure a row: section,workload,variant,
# metric,value). Every figure is the median of its samples; every ratio
# compares medians of the same run. POSIX awk (mawk is enough).
#
# Sample lines: KIND ROW VARIANT key=value..., KIND being tp (throughput),
# sys (syslog), px (two settings of the module side by side), jr (journal),
# fmt, start, mem, alloc, ir (callgrind instructions per line).

function median(key,    n, i, j, t, a) {
	n = cnt[key]
	if (!n)
		return ""
	for (i = 1; i <= n; i++)
		a[i] = val[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function push(key, v) {
	cnt[key]++
	val[key, cnt[key]] = v
}

function out(section, row, variant, metric, v) {
	if (v != "")
		printf "%s,%s,%s,%s,%s\n", section, row, variant, metric, v > csv
}

function label(row,    p, s) {
	split(row, p, "-")
	s = p[1] == "3" ? "3 fragments" : p[1] == "mix" ? "1 fragment, 90% filtered" : \
	    p[1] == "off" ? "1 fragment, all filtered" : "1 fragment"
	s = s ", " (p[2] == "null" ? "/dev/null" : "file")
	if (p[1] == "mix" || p[1] == "off")
		return s
	return s ", " p[3] " thread" (p[3] == 1 ? "" : "s")
}

# Throughput in lines/s from ns per line.
function lps(ns) {
	return ns > 0 ? 1e9 / ns : 0
}

function ratio(a, b) {
	return a > 0 && b > 0 ? a / b : ""
}

function fmtx(x) {
	return x == "" ? "    n/a" : sprintf("%6.2fx", x)
}

function verdict(ok, what) {
	printf "  %-8s %s\n", ok ? "[met]" : "[missed]", what
	out("target", "-", "-", what, ok ? "met" : "missed")
}

{
	delete kv
	for (i = 4; i <= NF; i++) {
		eq = index($i, "=")
		v = substr($i, eq + 1)
		kv[substr($i, 1, eq - 1)] = v ~ /^-?[0-9.]+$/ ? v + 0 : v
	}
	kind = $1; row = $2; var = $3
	if (kind == "tp") {
		if (!((row) in seen)) {
			seen[row] = 1
			order[++nrows] = row
		}
		push(row SUBSEP var, kv["ns"] / kv["lines"])
		push("cpu" SUBSEP row SUBSEP var, kv["cpu"] / kv["lines"])
		if (kv["ret"] == "bad")
			badret[row, var] = 1
		else if (kv["ret"] == "ok")
			okret[row, var] = 1
	} else if (kind == "sys") {
		if (kv["ns"] < 0)
			why[row, var] = "not measured: " kv["why"]
		else if (kv["delivered"] < kv["lines"])
			why[row, var] = "n/a: " kv["delivered"] " of " kv["lines"] " lines reached the receiver"
		else {
			push("sys" SUBSEP row SUBSEP var, kv["ns"] / kv["lines"])
			push("syscpu" SUBSEP row SUBSEP var, kv["cpu"] / kv["lines"])
		}
	} else if (kind == "px") {
		push("px" SUBSEP row SUBSEP var, kv["ns"] / kv["lines"])
		push("pxcpu" SUBSEP row SUBSEP var, kv["cpu"] / kv["lines"])
	} else if (kind == "jr") {
		if (var == "system")
			jsys = kv["present"]
		else if (var == "-" || kv["ns"] < 0) {
			w = kv["why"]
			gsub(/_/, " ", w)
			jwhy = (var == "-" ? "" : var ": ") "not measured: " w
		} else if (kv["failed"] > 0 || kv["diverted"] > 0)
			jwhy = "n/a: " var " failed " (kv["failed"] + kv["diverted"]) " of " kv["lines"] " lines"
		else {
			push("jr" SUBSEP var, kv["ns"] / kv["lines"])
			push("jrcpu" SUBSEP var, kv["cpu"] / kv["lines"])
			jlines = kv["lines"]
		}
	} else if (kind == "fmt" || kind == "start") {
		for (k in kv)
			single[kind, k] = kv[k]
	} else if (kind == "mem") {
		push("mapped" SUBSEP var, kv["mapped"])
		push("rss" SUBSEP var, kv["rss"])
		push("hwm" SUBSEP var, kv["hwm_kib"])
		threads = kv["threads"]
	} else if (kind == "alloc") {
		split(row, p, "-")
		calls = kv["lines"] * (p[1] == "3" ? 3 : 1)
		alloc[row, var] = kv["allocs"] < 0 ? "" : kv["allocs"] / calls
	} else if (kind == "ir") {
		irs[row, var] = kv["ir"]
	}
}

END {
	printf "" > csv
	printf "printk-shim benchmark: %d rounds, %d lines per run, median of the rounds%s\n", \
		rounds, lines, quick ? " (BENCH_QUICK: a smoke run, figures are rough)" : ""
	printf "naive: libkcompat's vfprintf(stderr); ideal: one snprintf + one write(2) per line; shim: LD_PRELOAD printk-shim\n"
	printf "x naive = naive ns / shim ns (speed-up); x ideal = shim ns / ideal ns (cost over the floor)\n"
	printf "filtered rows: PRINTK_SHIM_LEVEL=info; the naive printk cannot filter and writes every line\n\n"
	printf "%-40s %16s %16s %16s %8s %8s\n", "", "naive      ", "ideal      ", "shim       ", "", ""
	printf "%-40s %8s %7s %8s %7s %8s %7s %8s %8s\n", "workload", "lines/s", "ns", \
		"lines/s", "ns", "lines/s", "ns", "x naive", "x ideal"
	for (i = 1; i <= nrows; i++) {
		row = order[i]
		for (v = 1; v <= 3; v++) {
			name = v == 1 ? "naive" : v == 2 ? "ideal" : "shim"
			ns[row, name] = median(row SUBSEP name)
			out("throughput", row, name, "ns_per_line", sprintf("%.1f", ns[row, name]))
			out("throughput", row, name, "lines_per_s", sprintf("%.0f", lps(ns[row, name])))
		}
		xn = ratio(ns[row, "naive"], ns[row, "shim"])
		xi = ratio(ns[row, "shim"], ns[row, "ideal"])
		out("throughput", row, "shim", "x_naive", xn == "" ? "" : sprintf("%.3f", xn))
		out("throughput", row, "shim", "x_ideal", xi == "" ? "" : sprintf("%.3f", xi))
		printf "%-40s %8.0f %7.1f %8.0f %7.1f %8.0f %7.1f %8s %8s\n", label(row), \
			lps(ns[row, "naive"]), ns[row, "naive"], lps(ns[row, "ideal"]), ns[row, "ideal"], \
			lps(ns[row, "shim"]), ns[row, "shim"], fmtx(xn), fmtx(xi)
	}

	printf "\nCPU time per line, ns (user + system of the printing threads; load elsewhere hardly moves it)\n"
	printf "%-40s %8s %8s %8s %8s %8s\n", "workload", "naive", "ideal", "shim", "x naive", "x ideal"
	for (i = 1; i <= nrows; i++) {
		row = order[i]
		for (v = 1; v <= 3; v++) {
			name = v == 1 ? "naive" : v == 2 ? "ideal" : "shim"
			cpu[row, name] = median("cpu" SUBSEP row SUBSEP name)
			out("cpu", row, name, "cpu_ns_per_line", sprintf("%.1f", cpu[row, name]))
		}
		printf "%-40s %8.1f %8.1f %8.1f %8s %8s\n", label(row), cpu[row, "naive"], \
			cpu[row, "ideal"], cpu[row, "shim"], fmtx(ratio(cpu[row, "naive"], cpu[row, "shim"])), \
			fmtx(ratio(cpu[row, "shim"], cpu[row, "ideal"]))
	}

	printf "\nScaling: lines/s with N threads over lines/s with 1 thread (2 shared cores)\n"
	printf "%-40s %8s %8s %8s\n", "workload", "naive", "ideal", "shim"
	for (i = 1; i <= nrows; i++) {
		row = order[i]
		split(row, p, "-")
		if (p[3] == 1 || (p[1] != "1" && p[1] != "3"))
			continue
		one = p[1] "-" p[2] "-1"
		printf "%-40s", label(row)
		for (v = 1; v <= 3; v++) {
			name = v == 1 ? "naive" : v == 2 ? "ideal" : "shim"
			sc = ratio(ns[one, name], ns[row, name])
			scale[row, name] = sc
			out("scaling", row, name, "vs_1_thread", sc == "" ? "" : sprintf("%.3f", sc))
			printf " %7s", sc == "" ? "n/a" : sprintf("%.2fx", sc)
		}
		printf "\n"
	}

	written = ns["1-null-1", "shim"]
	filtered = ns["off-null-1", "shim"]
	fx = ratio(written, filtered)
	printf "\nFiltering (PRINTK_SHIM_LEVEL=info, 1-fragment lines to /dev/null)\n"
	printf "  written line %.1f ns, filtered-out line %.1f ns: filtered is %s cheaper\n", \
		written, filtered, fx == "" ? "n/a" : sprintf("%.1fx", fx)
	out("filter", "off-null-1", "shim", "written_over_filtered", fx == "" ? "" : sprintf("%.2f", fx))
	retok = okret["off-null-1", "shim"] && !badret["off-null-1", "shim"]
	out("filter", "off-null-1", "shim", "return_value", retok ? "right" : "wrong")

	# The per-call path's three ratios, side by side, from the medians above.
	pcx3 = ratio(ns["3-null-1", "shim"], ns["3-null-1", "ideal"])
	pcc3 = ratio(cpu["3-null-1", "shim"], cpu["3-null-1", "ideal"])
	pcx1 = ratio(ns["1-null-1", "shim"], ns["1-null-1", "ideal"])
	pcc1 = ratio(cpu["1-null-1", "shim"], cpu["1-null-1", "ideal"])
	pccf = ratio(cpu["1-null-1", "shim"], cpu["off-null-1", "shim"])
	printf "\nPer-call path, 1 thread, /dev/null (wall clock, CPU time in brackets)\n"
	printf "  %-7s %-28s %-28s %s\n", "", "3 fragments, x ideal", "1 fragment, x ideal", "filtered-out, x cheaper"
	printf "  %-7s %-28s %-28s %s\n", "shim", sprintf("%.2fx [cpu %.2fx]", pcx3, pcc3), sprintf("%.2fx [cpu %.2fx]", pcx1, pcc1), \
		sprintf("%.1fx [cpu %.1fx], return value %s", fx, pccf, retok ? "right" : "WRONG")
	out("percall", "3-null-1", "shim", "x_ideal", sprintf("%.3f", pcx3))
	out("percall", "1-null-1", "shim", "x_ideal", sprintf("%.3f", pcx1))
	out("percall", "off-null-1", "shim", "written_over_filtered", sprintf("%.2f", fx))
	if (cnt["1-null-1" SUBSEP "old"]) {
		# BENCH_OLD: the same three with the older module, same rounds.
		for (v = 1; v <= 3; v++) {
			row = v == 1 ? "3-null-1" : v == 2 ? "1-null-1" : "off-null-1"
			ns[row, "old"] = median(row SUBSEP "old")
			cpu[row, "old"] = median("cpu" SUBSEP row SUBSEP "old")
		}
		ofx = ratio(ns["1-null-1", "old"], ns["off-null-1", "old"])
		oretok = okret["off-null-1", "old"] && !badret["off-null-1", "old"]
		printf "  %-7s %-28s %-28s %s\n", "old", \
			sprintf("%.2fx [cpu %.2fx]", ratio(ns["3-null-1", "old"], ns["3-null-1", "ideal"]), \
				ratio(cpu["3-null-1", "old"], cpu["3-null-1", "ideal"])), \
			sprintf("%.2fx [cpu %.2fx]", ratio(ns["1-null-1", "old"], ns["1-null-1", "ideal"]), \
				ratio(cpu["1-null-1", "old"], cpu["1-null-1", "ideal"])), \
			sprintf("%.1fx [cpu %.1fx], return value %s", ofx, \
				ratio(cpu["1-null-1", "old"], cpu["off-null-1", "old"]), oretok ? "right" : "WRONG")
		for (v = 1; v <= 3; v++) {
			row = v == 1 ? "3-null-1" : v == 2 ? "1-null-1" : "off-null-1"
			out("throughput", row, "old", "ns_per_line", sprintf("%.1f", ns[row, "old"]))
			out("cpu", row, "old", "cpu_ns_per_line", sprintf("%.1f", cpu[row, "old"]))
		}
	}

	printf "\nSyslog: %d lines per run to one AF_UNIX datagram receiver (a counting child process)\n", lines / 2
	printf "  %-10s %-18s %10s %10s %16s\n", "threads", "sender", "lines/s", "ns/line", "CPU ns/line"
	split("1 4 8", systh, " ")
	for (k = 1; k <= 3; k++) {
		row = "syslog-" systh[k]
		for (v = 1; v <= 2; v++) {
			name = v == 1 ? "glibc" : "shim"
			sys[row, name] = median("sys" SUBSEP row SUBSEP name)
			if (sys[row, name] == "") {
				printf "  %-10s %-18s %s\n", systh[k], v == 1 ? "glibc syslog(3)" : "printk-shim", \
					why[row, name] == "" ? "n/a" : why[row, name]
				out("syslog", row, name, "status", why[row, name] == "" ? "n/a" : why[row, name])
				continue
			}
			syscpu[row, name] = median("syscpu" SUBSEP row SUBSEP name)
			printf "  %-10s %-18s %10.0f %10.1f %16.1f\n", systh[k], \
				v == 1 ? "glibc syslog(3)" : "printk-shim", lps(sys[row, name]), sys[row, name], \
				syscpu[row, name]
			out("syslog", row, name, "ns_per_line", sprintf("%.1f", sys[row, name]))
			out("syslog", row, name, "cpu_ns_per_line", sprintf("%.1f", syscpu[row, name]))
			out("syslog", row, name, "lines_per_s", sprintf("%.0f", lps(sys[row, name])))
		}
	}
	xs = ratio(sys["syslog-1", "glibc"], sys["syslog-1", "shim"])
	if (xs != "")
		printf "  1 thread: printk-shim is %.2fx glibc syslog(3)'s throughput\n", xs
	xc8 = ratio(syscpu["syslog-8", "shim"], syscpu["syslog-8", "glibc"])
	if (xc8 != "")
		printf "  8 threads: printk-shim's CPU a line is %.2fx glibc syslog(3)'s\n", xc8

	printf "\nSide by side, 1-fragment lines from 1 thread: the second setting's time over the first's\n"
	printf "  %-44s %9s %9s %8s %8s\n", "first / second", "first ns", "second ns", "ratio", "cpu"
	split("json file", prow, " ")
	pa["json"] = "prefix"; pb["json"] = "json"
	pa["file"] = "redirect"; pb["file"] = "file"
	plabel["json"] = "FORMAT=prefix / FORMAT=json, /dev/null"
	plabel["file"] = "stderr to a file / OUTPUT=file:PATH"
	for (i = 1; i <= 2; i++) {
		row = prow[i]
		a = median("px" SUBSEP row SUBSEP pa[row]); b = median("px" SUBSEP row SUBSEP pb[row])
		ca = median("pxcpu" SUBSEP row SUBSEP pa[row]); cb = median("pxcpu" SUBSEP row SUBSEP pb[row])
		px[row] = ratio(b, a); pxc[row] = ratio(cb, ca)
		printf "  %-44s %9.1f %9.1f %8s %8s\n", plabel[row], a, b, fmtx(px[row]), fmtx(pxc[row])
		out("pair", row, pa[row], "ns_per_line", sprintf("%.1f", a))
		out("pair", row, pb[row], "ns_per_line", sprintf("%.1f", b))
		out("pair", row, pa[row], "cpu_ns_per_line", sprintf("%.1f", ca))
		out("pair", row, pb[row], "cpu_ns_per_line", sprintf("%.1f", cb))
		out("pair", row, pb[row], "over_" pa[row], px[row] == "" ? "" : sprintf("%.3f", px[row]))
	}

	jsd = median("jr" SUBSEP "sd"); jsh = median("jr" SUBSEP "shim")
	if (jwhy != "" || jsd == "" || jsh == "") {
		printf "\nJournal: %s\n", jwhy == "" ? "not measured" : jwhy
		out("journal", "journal", "-", "status", jwhy == "" ? "not measured" : jwhy)
	} else {
		printf "\nJournal: %d lines per run to a private systemd-journald namespace instance (storing them)\n", jlines
		for (v = 1; v <= 2; v++) {
			name = v == 1 ? "sd" : "shim"
			j = v == 1 ? jsd : jsh
			jc[name] = median("jrcpu" SUBSEP name)
			printf "  %-24s %8.0f lines/s %8.1f ns/line %8.1f CPU ns/line (the sender's)\n", \
				v == 1 ? "sd_journal_send(3)" : "printk-shim", lps(j), j, jc[name]
			out("journal", "journal", name, "ns_per_line", sprintf("%.1f", j))
			out("journal", "journal", name, "cpu_ns_per_line", sprintf("%.1f", jc[name]))
		}
		printf "  printk-shim is %.2fx sd_journal_send's throughput [cpu %.2fx]\n", \
			ratio(jsd, jsh), ratio(jc["sd"], jc["shim"])
	}
	printf "  the system's /run/systemd/journal/socket: %s (never sent to)\n", jsys ? "present" : "absent"

	printf "\nFormat fast path (no %%p extensions), CPU ns per call, alternating in one process\n"
	printf "  %-8s %14s %12s %8s\n", "format", "pks_vsnprintf", "vsnprintf", "ratio"
	for (v = 1; v <= 2; v++) {
		name = v == 1 ? "ints" : "mixed"
		a = single["fmt", name "_pks"]; b = single["fmt", name "_libc"]
		printf "  %-8s %14.1f %12.1f %8s\n", name, a, b, fmtx(ratio(a, b))
		out("format", name, "pks_vsnprintf", "ns_per_call", a)
		out("format", name, "vsnprintf", "ns_per_call", b)
	}

	t0 = single["start", "true"] / 1e6
	t1 = single["start", "preload"] / 1e6
	t2 = single["start", "wrapper"] / 1e6
	printf "\nStart-up, median of %d spawns each, interleaved\n", spawns
	printf "  /bin/true %.3f ms; LD_PRELOAD=module /bin/true %.3f ms (+%.3f); printk-shim -- /bin/true %.3f ms (+%.3f)\n", \
		t0, t1, t1 - t0, t2, t2 - t0
	c0 = single["start", "true_cpu"] / 1e6
	c1 = single["start", "preload_cpu"] / 1e6
	c2 = single["start", "wrapper_cpu"] / 1e6
	printf "  CPU time of the process: %.3f ms; %.3f ms (+%.3f); %.3f ms (+%.3f)\n", \
		c0, c1, c1 - c0, c2, c2 - c0
	out("startup", "true", "bare", "cpu_ms", sprintf("%.3f", c0))
	out("startup", "true", "preload", "cpu_ms", sprintf("%.3f", c1))
	out("startup", "true", "wrapper", "cpu_ms", sprintf("%.3f", c2))
	out("startup", "true", "bare", "ms", sprintf("%.3f", t0))
	out("startup", "true", "preload", "ms", sprintf("%.3f", t1))
	out("startup", "true", "wrapper", "ms", sprintf("%.3f", t2))

	printf "\nMemory\n"
	for (v = 1; v <= 2; v++) {
		name = v == 1 ? "naive" : "shim"
		mm[name] = median("mapped" SUBSEP name)
		mr[name] = median("rss" SUBSEP name)
		mh[name] = median("hwm" SUBSEP name)
		out("memory", "per-thread", name, "mapped_bytes", mm[name])
		out("memory", "per-thread", name, "rss_bytes", mr[name])
		out("memory", threads "-threads", name, "peak_rss_kib", mh[name])
	}
	printf "  per thread, at its first printk: shim maps %d B (%d B resident); naive %d B (%d B)\n", \
		mm["shim"], mr["shim"], mm["naive"], mr["naive"]
	printf "  peak RSS with %d threads: shim %d KiB, naive %d KiB\n", threads, mh["shim"], mh["naive"]
	printf "  heap allocations per printk call, steady state:"
	for (t = 1; t <= 4; t += 3)
		for (v = 1; v <= 2; v++) {
			name = v == 1 ? "naive" : "shim"
			a = alloc["3-null-" t, name]
			printf " %s %s (%d thread%s)%s", name, a == "" ? "n/a" : a, t, t == 1 ? "" : "s", \
				t == 4 && v == 2 ? "\n" : ";"
			out("memory", "3-null-" t, name, "allocs_per_call", a)
		}

	if (("1-null-1", "shim") in irs) {
		printf "\nInstructions per line (callgrind, user space, 1 thread)\n"
		printf "%-40s %8s %8s %8s %8s\n", "workload", "naive", "ideal", "shim", "x ideal"
		split("1-null-1 3-null-1 off-null-1", irows, " ")
		for (i = 1; i <= 3; i++) {
			row = irows[i]
			printf "%-40s %8d %8d %8d %8s\n", label(row), irs[row, "naive"], irs[row, "ideal"], \
				irs[row, "shim"], fmtx(ratio(irs[row, "shim"], irs[row, "ideal"]))
			for (v = 1; v <= 3; v++) {
				name = v == 1 ? "naive" : v == 2 ? "ideal" : "shim"
				out("instructions", row, name, "ir_per_line", irs[row, name])
			}
		}
		a = irs["json-null-1", "prefix"]; b = irs["json-null-1", "json"]
		printf "1 fragment, /dev/null: FORMAT=prefix %d, FORMAT=json %d (%s)\n", a, b, fmtx(ratio(b, a))
		out("instructions", "json-null-1", "prefix", "ir_per_line", a)
		out("instructions", "json-null-1", "json", "ir_per_line", b)
	} else {
		printf "\nInstructions per line: not measured (%s)\n", quick ? "BENCH_QUICK" : "no valgrind"
	}

	printf "\nTargets (wall-clock medians, the CPU-time figure in brackets)\n"
	x = ratio(ns["3-null-1", "naive"], ns["3-null-1", "shim"])
	c = ratio(cpu["3-null-1", "naive"], cpu["3-null-1", "shim"])
	verdict(x >= 2.0, sprintf("3 fragments, /dev/null: %.2fx naive (>= 2.0x) [cpu %.2fx]", x, c))
	x = ratio(ns["3-file-1", "naive"], ns["3-file-1", "shim"])
	c = ratio(cpu["3-file-1", "naive"], cpu["3-file-1", "shim"])
	verdict(x >= 2.0, sprintf("3 fragments, file: %.2fx naive (>= 2.0x) [cpu %.2fx]", x, c))
	verdict(pcx3 != "" && pcx3 <= 1.10, sprintf("3 fragments, /dev/null: %.2fx ideal (<= 1.10x) [cpu %.2fx]", pcx3, pcc3))
	verdict(pcx1 != "" && pcx1 <= 1.00, sprintf("1 fragment, /dev/null: %.2fx ideal (<= 1.00x) [cpu %.2fx]", pcx1, pcc1))
	x = scale["1-null-2", "shim"]
	c = ratio(cpu["1-null-1", "shim"], cpu["1-null-2", "shim"])
	verdict(x >= 1.7, sprintf("2 threads, /dev/null: %.2fx one thread (>= 1.7x; ideal %.2fx) [cpu per line 1T/2T %.2f]", \
		x, scale["1-null-2", "ideal"], c))
	verdict(fx >= 12 && retok, sprintf("filtered-out lines %.1fx cheaper than written (>= 12x), return value %s [cpu %.1fx]", \
		fx, retok ? "right" : "wrong", pccf))
	if (xs == "")
		verdict(0, "syslog: n/a (" (why["syslog-1", "shim"] != "" ? why["syslog-1", "shim"] : \
			why["syslog-1", "glibc"]) ")")
	else
		verdict(xs >= 1, sprintf("syslog: %.2fx glibc syslog(3) (>= 1.0x) [cpu %.2fx]", xs, \
			ratio(syscpu["syslog-1", "glibc"], syscpu["syslog-1", "shim"])))
	if (xc8 == "")
		verdict(0, "syslog, 8 threads: n/a")
	else
		verdict(xc8 <= 1.2, sprintf("syslog, 8 threads: CPU a line %.2fx glibc syslog(3)'s (<= 1.2x)", xc8))
	verdict(t2 - t0 < 1, sprintf("start-up: printk-shim -- /bin/true adds %.3f ms (< 1 ms) [cpu +%.3f ms]", \
		t2 - t0, c2 - c0))
	verdict(px["json"] != "" && px["json"] <= 1.3, sprintf("FORMAT=json: %.2fx FORMAT=prefix per line (<= 1.3x) [cpu %.2fx]", \
		px["json"], pxc["json"]))
	a = alloc["3-null-1", "shim"]; b = alloc["3-null-4", "shim"]
	verdict(a == 0 && b == 0, sprintf("heap allocations per printk call: %s, %s with 4 threads (0)", \
		a == "" ? "n/a" : a, b == "" ? "n/a" : b))
}
