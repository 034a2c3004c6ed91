# googlenet, batch 128/GPU, 1 GPU/node, 16 nodes
# Written by possim report (possim 44b92de). Run `gnuplot fig01-bandwidth.gp` in this folder
# to draw fig01-bandwidth.svg and fig01-bandwidth.png again from fig01-bandwidth.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-bandwidth.svg'
set title 'googlenet, batch 128/GPU, 1 GPU/node, 16 nodes'
set xlabel 'NIC line rate (Gbit/s)'
set ylabel 'images/s (whole cluster)'
set grid
set key outside top center horizontal box opaque
set xrange [2:10.4]
set yrange [0:*]
plot 'fig01-bandwidth.dat' index 0 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#377eb8' notitle, \
     'fig01-bandwidth.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#377eb8' title 'poseidon', \
     'fig01-bandwidth.dat' index 1 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#ff7f00' notitle, \
     'fig01-bandwidth.dat' index 1 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#ff7f00' title 'wfbp'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-bandwidth.png'
replot
unset output
