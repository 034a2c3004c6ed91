# resnet50, batch 64/GPU, 8 GPU/node, 25 Gbit/s, latency 5 us
# Written by possim report (possim fc711f6). Run `gnuplot fig01-speedup.gp` in this folder
# to draw fig01-speedup.svg and fig01-speedup.png again from fig01-speedup.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-speedup.svg'
set title 'resnet50, batch 64/GPU, 8 GPU/node, 25 Gbit/s, latency 5 us'
set xlabel 'nodes'
set ylabel 'speedup over one GPU'
set grid
set key outside top center horizontal box opaque
set xrange [0:33.28]
set yrange [0:*]
plot 'fig01-speedup.dat' index 0 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#4daf4a' notitle, \
     'fig01-speedup.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#4daf4a' title 'allreduce', \
     'fig01-speedup.dat' index 1 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#00b5b8' notitle, \
     'fig01-speedup.dat' index 1 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#00b5b8' title 'hier_allreduce', \
     'fig01-speedup.dat' index 2 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#377eb8' notitle, \
     'fig01-speedup.dat' index 2 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#377eb8' title 'poseidon', \
     'fig01-speedup.dat' index 3 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#b8a200' notitle, \
     'fig01-speedup.dat' index 3 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#b8a200' title 'tree_allreduce', \
     x * 8 with lines dt 2 lw 1.5 lc rgb '#555555' title 'linear'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-speedup.png'
replot
unset output
