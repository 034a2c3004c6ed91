# Least swept NIC for 90% scaling efficiency: vgg19, 1 GPU/node
# Written by possim report (possim 44b92de). Run `gnuplot fig01-min-bandwidth.gp` in this folder
# to draw fig01-min-bandwidth.svg and fig01-min-bandwidth.png again from fig01-min-bandwidth.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-min-bandwidth.svg'
set title 'Least swept NIC for 90% scaling efficiency: vgg19, 1 GPU/node'
set ylabel 'Gbit/s per node (log)'
set logscale y
set grid ytics
set key outside top center horizontal box opaque
set datafile missing '?'
set xtics nomirror
set yrange [5:60]
set xrange [-0.6:1.6]
set xtics ('poseidon' 0, 'wfbp' 1)
plot 'fig01-min-bandwidth.dat' using ($0 + 0):(strcol(2) eq 'not reached' ? NaN : column(2)):($0 + -0.225):($0 + 0.225):(5):(strcol(2) eq 'not reached' ? NaN : column(2)) with boxxyerror fs solid 0.85 border lc rgb '#333333' lc rgb '#4e79a7' title '16 nodes', \
     '' using ($0 + 0):(strcol(2) eq 'not reached' ? 60 : NaN):($0 + -0.225):($0 + 0.225):(5):(strcol(2) eq 'not reached' ? 60 : NaN) with boxxyerror fs pattern 4 border lc rgb '#4e79a7' lc rgb '#4e79a7' notitle, \
     '' using ($0 + 0):(52.1739):(strcol(2) eq 'not reached' ? 'not reached' : '') with labels rotate by 90 right font ',9' tc rgb '#333333' notitle
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-min-bandwidth.png'
replot
unset output
