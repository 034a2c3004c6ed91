# Sync windows: vgg19_22k, 32 nodes x 1 GPU, 40 Gbit/s, poseidon (simgrid)
# Written by possim report (possim 44b92de). Run `gnuplot fig01-layers.gp` in this folder
# to draw fig01-layers.svg and fig01-layers.png again from fig01-layers.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-layers.svg'
set title 'Sync windows: vgg19_22k, 32 nodes x 1 GPU, 40 Gbit/s, poseidon (simgrid)'
set xlabel 'time from the iteration''s start (ms)'
set ytics ('fc8' 0, 'fc7' 1, 'fc6' 2, 'conv5_4' 3, 'conv5_3' 4, 'conv5_2' 5, 'conv5_1' 6, 'conv4_4' 7, 'conv4_3' 8, 'conv4_2' 9, 'conv4_1' 10, 'conv3_4' 11, 'conv3_3' 12, 'conv3_2' 13, 'conv3_1' 14, 'conv2_2' 15, 'conv2_1' 16, 'conv1_2' 17, 'conv1_1' 18)
set ytics font ',9'
set yrange [18.5:-0.5]
set xrange [0:1025.47]
set grid xtics
set key outside top center horizontal box opaque
set arrow from 995.602, graph 0 to 995.602, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'
plot 'fig01-layers.dat' index 0 using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '#1f77b4' title 'sfb', \
     'fig01-layers.dat' index 1 using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '#ff7f0e' title 'ps'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-layers.png'
replot
unset output
