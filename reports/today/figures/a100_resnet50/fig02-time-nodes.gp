# Where an iteration goes vs nodes: resnet50, allreduce (simgrid), 8 GPU/node, 100 Gbit/s
# Written by possim report (possim fc711f6). Run `gnuplot fig02-time-nodes.gp` in this folder
# to draw fig02-time-nodes.svg and fig02-time-nodes.png again from fig02-time-nodes.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig02-time-nodes.svg'
set xlabel 'nodes'
set title 'Where an iteration goes vs nodes: resnet50, allreduce (simgrid), 8 GPU/node, 100 Gbit/s'
set ylabel 'seconds per iteration'
set grid ytics
set key outside top center horizontal box opaque
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set yrange [0:0.5]
set xtics nomirror
plot 'fig02-time-nodes.dat' using 2:xtic(1) title 'compute' lc rgb '#1f77b4', \
     '' using 3 title 'net' lc rgb '#d62728'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig02-time-nodes.png'
replot
unset output
