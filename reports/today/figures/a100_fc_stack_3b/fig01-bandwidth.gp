# fc_stack_3b, batch 2048/GPU, 8 GPU/node, 32 nodes, latency 5 us
# Written by possim report (possim fc711f6). Run `gnuplot fig01-bandwidth.gp` in this folder
# to draw fig01-bandwidth.svg and fig01-bandwidth.png again from fig01-bandwidth.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-bandwidth.svg'
set title 'fc_stack_3b, batch 2048/GPU, 8 GPU/node, 32 nodes, latency 5 us'
set xlabel 'NIC line rate (Gbit/s)'
set ylabel 'images/s (whole cluster)'
set grid
set key outside top center horizontal box opaque
set logscale x 2
set xtics (25, 100, 200, 400)
set xrange [20.8333:480]
set yrange [0:*]
plot 'fig01-bandwidth.dat' index 0 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#4daf4a' notitle, \
     'fig01-bandwidth.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#4daf4a' title 'allreduce', \
     'fig01-bandwidth.dat' index 1 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#00b5b8' notitle, \
     'fig01-bandwidth.dat' index 1 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#00b5b8' title 'hier_allreduce', \
     'fig01-bandwidth.dat' index 2 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#377eb8' notitle, \
     'fig01-bandwidth.dat' index 2 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#377eb8' title 'poseidon', \
     'fig01-bandwidth.dat' index 3 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#b8a200' notitle, \
     'fig01-bandwidth.dat' index 3 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#b8a200' title 'tree_allreduce'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-bandwidth.png'
replot
unset output
