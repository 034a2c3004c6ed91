# vgg19, batch 32/GPU, 1 GPU/node, 40 Gbit/s
# Written by possim report (possim 44b92de). Run `gnuplot fig01-speedup.gp` in this folder
# to draw fig01-speedup.svg and fig01-speedup.png again from fig01-speedup.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-speedup.svg'
set title 'vgg19, batch 32/GPU, 1 GPU/node, 40 Gbit/s'
set xlabel 'nodes'
set ylabel 'speedup over one GPU'
set grid
set key outside top center horizontal box opaque
set xrange [0:33.28]
set yrange [0:*]
plot 'fig01-speedup.dat' index 0 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#377eb8' notitle, \
     'fig01-speedup.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#377eb8' title 'poseidon', \
     'fig01-speedup.dat' index 1 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#984ea3' notitle, \
     'fig01-speedup.dat' index 1 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#984ea3' title 'tf_stock', \
     'fig01-speedup.dat' index 2 using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '#ff7f00' notitle, \
     'fig01-speedup.dat' index 2 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#ff7f00' title 'wfbp', \
     x * 1 with lines dt 2 lw 1.5 lc rgb '#555555' title 'linear'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-speedup.png'
replot
unset output
