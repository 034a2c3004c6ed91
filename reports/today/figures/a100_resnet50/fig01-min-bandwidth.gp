# Least swept NIC for 90% scaling efficiency: resnet50, 8 GPU/node
# Written by possim report (possim 364612d-dirty). Run `gnuplot fig01-min-bandwidth.gp` in this folder
# to draw fig01-min-bandwidth.svg and fig01-min-bandwidth.png again from fig01-min-bandwidth.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-min-bandwidth.svg'
set title 'Least swept NIC for 90% scaling efficiency: resnet50, 8 GPU/node'
set ylabel 'Gbit/s per node (log)'
set logscale y
set grid ytics
set key below horizontal
set datafile missing '?'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics nomirror
set xrange [-0.6:3.6]
plot 'fig01-min-bandwidth.dat' using 2:xtic(1) title '2 nodes', \
     '' using 3 title '8 nodes', \
     '' using 4 title '32 nodes'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-min-bandwidth.png'
replot
unset output
