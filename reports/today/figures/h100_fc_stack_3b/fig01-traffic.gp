# Bytes per node per iteration: fc_stack_3b, 32 nodes x 8 GPU, 25 Gbit/s
# Written by possim report (possim fc711f6). Run `gnuplot fig01-traffic.gp` in this folder
# to draw fig01-traffic.svg and fig01-traffic.png again from fig01-traffic.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-traffic.svg'
set title 'Bytes per node per iteration: fc_stack_3b, 32 nodes x 8 GPU, 25 Gbit/s'
set ylabel 'MB per iteration'
set grid ytics
set key outside top center horizontal box opaque
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set xtics nomirror
plot 'fig01-traffic.dat' using 2:xtic(1) title 'sent, busiest node' lc rgb '#1f77b4', \
     '' using 3 title 'sent, mean node' lc rgb '#aec7e8', \
     '' using 4 title 'received, busiest node' lc rgb '#d62728', \
     '' using 5 title 'received, mean node' lc rgb '#ff9896'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-traffic.png'
replot
unset output
