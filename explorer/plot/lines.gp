# lines.gp - a metric against one sweep axis, one line per value of another
# (cephsim query DB --plot METRIC --x AXIS [--by AXIS] -o FILE).
#
# cephsim writes the data file and passes, with gnuplot -e:
#   datafile  blocks separated by two blank lines, one per series; each block
#             starts with a header line whose first field is the series title,
#             then rows: x position, x label, mean, 95 % CI half-width
#   outfile, term ('pngcairo' or 'svg'), title, xlabel, ylabel,
#   nseries, catx (1: categorical x, labels from column 2), logx, errbars
if (term eq 'svg') {
    set terminal svg size 900,600 dynamic enhanced font 'Sans,11'
} else {
    set terminal pngcairo size 900,600 enhanced font 'Sans,10'
}
set output outfile
set title title noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set grid
set key outside right top noenhanced
set yrange [0:*]
if (logx) { set logscale x 2 }
if (catx) { set offsets 0.5, 0.5, 0, 0 }
if (errbars && catx) {
    plot for [i=0:nseries-1] datafile index i using 1:3:4:xtic(2) with yerrorlines lw 2 title columnheader(1)
}
if (errbars && !catx) {
    plot for [i=0:nseries-1] datafile index i using 1:3:4 with yerrorlines lw 2 title columnheader(1)
}
if (!errbars && catx) {
    plot for [i=0:nseries-1] datafile index i using 1:3:xtic(2) with linespoints lw 2 pt 7 title columnheader(1)
}
if (!errbars && !catx) {
    plot for [i=0:nseries-1] datafile index i using 1:3 with linespoints lw 2 pt 7 title columnheader(1)
}
