# SPDX-License-Identifier: MIT
# make bench-plot: bench/peer-bench's throughput, lines per second against
# threads, one curve per logger, to /dev/null and to a file side by side.
# gnuplot -e "data='peers.dat'; out='peers.png'" bench/plot.gp

set terminal pngcairo size 1200,520 font ",10"
set output out
set multiplot layout 1,2 title "The line \"worker %d: processed %u items in %s\", medians of the rounds (make bench-plot)"
set logscale xy 2
set xrange [0.8:10]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8)
set xlabel "threads"
set ylabel "lines per second"
set format y "%.0s%c"
set grid
set key below horizontal maxrows 3 samplen 2

names = "ideal shim shim-defer stdio spdlog spdlog-async-block spdlog-async-overrun"
titles = "'ideal (snprintf + write)' 'printk-shim' 'printk-shim DEFER=1' 'stdio \\_IOFBF' 'spdlog sync' 'spdlog async, block' 'spdlog async, overrun'"

do for [d in "null file"] {
	set title (d eq "null" ? "to /dev/null" : "to a file")
	plot for [i=1:words(names)] data \
		using ((strcol(1) eq word(names, i) && strcol(2) eq d) ? $3 : NaN):4 \
		with linespoints lw 2 pt 7 title word(titles, i)
}
unset multiplot
