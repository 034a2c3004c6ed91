# Sync windows: fc_stack_3b, 32 nodes x 8 GPU, 25 Gbit/s, poseidon (simgrid)
# Written by possim report (possim fc711f6). Run `gnuplot fig01-layers.gp` in this folder
# to draw fig01-layers.svg and fig01-layers.png again from fig01-layers.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,792 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-layers.svg'
set title 'Sync windows: fc_stack_3b, 32 nodes x 8 GPU, 25 Gbit/s, poseidon (simgrid)'
set xlabel 'time from the iteration''s start (ms)'
set ytics ('mlp23_down' 0, 'mlp23_up' 1, 'mlp22_down' 2, 'mlp22_up' 3, 'mlp21_down' 4, 'mlp21_up' 5, 'mlp20_down' 6, 'mlp20_up' 7, 'mlp19_down' 8, 'mlp19_up' 9, 'mlp18_down' 10, 'mlp18_up' 11, 'mlp17_down' 12, 'mlp17_up' 13, 'mlp16_down' 14, 'mlp16_up' 15, 'mlp15_down' 16, 'mlp15_up' 17, 'mlp14_down' 18, 'mlp14_up' 19, 'mlp13_down' 20, 'mlp13_up' 21, 'mlp12_down' 22, 'mlp12_up' 23, 'mlp11_down' 24, 'mlp11_up' 25, 'mlp10_down' 26, 'mlp10_up' 27, 'mlp9_down' 28, 'mlp9_up' 29, 'mlp8_down' 30, 'mlp8_up' 31, 'mlp7_down' 32, 'mlp7_up' 33, 'mlp6_down' 34, 'mlp6_up' 35, 'mlp5_down' 36, 'mlp5_up' 37, 'mlp4_down' 38, 'mlp4_up' 39, 'mlp3_down' 40, 'mlp3_up' 41, 'mlp2_down' 42, 'mlp2_up' 43, 'mlp1_down' 44, 'mlp1_up' 45, 'mlp0_down' 46, 'mlp0_up' 47)
set ytics font ',9'
set yrange [47.5:-0.5]
set xrange [0:10179.9]
set grid xtics
set key outside top center horizontal box opaque
set arrow from 9883.36, graph 0 to 9883.36, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'
plot 'fig01-layers.dat' index 0 using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '#ff7f0e' title 'ps'
set terminal pngcairo size 760,792 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-layers.png'
replot
unset output
