# Sync windows: googlenet, 16 nodes x 1 GPU, 2 Gbit/s, poseidon (simgrid)
# Written by possim report (possim 44b92de). Run `gnuplot fig01-layers.gp` in this folder
# to draw fig01-layers.svg and fig01-layers.png again from fig01-layers.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,932 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-layers.svg'
set title 'Sync windows: googlenet, 16 nodes x 1 GPU, 2 Gbit/s, poseidon (simgrid)'
set xlabel 'time from the iteration''s start (ms)'
set ytics ('loss3/classifier' 0, 'inception_5b/5x5' 2, 'inception_5b/3x3' 4, 'inception_5b/1x1' 6, 'inception_5a/5x5' 8, 'inception_5a/3x3' 10, 'inception_5a/1x1' 12, 'inception_4e/5x5' 14, 'inception_4e/3x3' 16, 'inception_4e/1x1' 18, 'inception_4d/5x5' 20, 'inception_4d/3x3' 22, 'inception_4d/1x1' 24, 'inception_4c/5x5' 26, 'inception_4c/3x3' 28, 'inception_4c/1x1' 30, 'inception_4b/5x5' 32, 'inception_4b/3x3' 34, 'inception_4b/1x1' 36, 'inception_4a/5x5' 38, 'inception_4a/3x3' 40, 'inception_4a/1x1' 42, 'inception_3b/5x5' 44, 'inception_3b/3x3' 46, 'inception_3b/1x1' 48, 'inception_3a/5x5' 50, 'inception_3a/3x3' 52, 'inception_3a/1x1' 54, 'conv2/3x3_reduce' 56)
set ytics font ',9'
set yrange [57.5:-0.5]
set xrange [0:671.472]
set grid xtics
set key outside top center horizontal box opaque
set arrow from 651.914, graph 0 to 651.914, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'
plot 'fig01-layers.dat' index 0 using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '#ff7f0e' title 'ps'
set terminal pngcairo size 760,932 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-layers.png'
replot
unset output
