# heatmap.gp - a metric over two sweep axes
# (cephsim query DB --plot METRIC --x AXIS --y AXIS -o FILE).
#
# cephsim writes the data file and passes, with gnuplot -e:
#   datafile  rows: x index, y index, mean (NaN where no point was run)
#   outfile, term ('pngcairo' or 'svg'), title, xlabel, ylabel, cblabel,
#   xtics_spec, ytics_spec: tic lists such as ("10gbase-t" 0, "100gbe" 1)
if (term eq 'svg') {
    set terminal svg size 900,600 dynamic enhanced font 'Sans,11'
} else {
    set terminal pngcairo size 900,600 enhanced font 'Sans,10'
}
set output outfile
set title title noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set cblabel cblabel noenhanced
eval('set xtics '.xtics_spec)
eval('set ytics '.ytics_spec)
set tics noenhanced
set palette rgbformulae 33,13,10
unset key
plot datafile using 1:2:3 with image, \
     '' using 1:2:($3 == $3 ? sprintf('%.4g', $3) : '') with labels font ',9'
