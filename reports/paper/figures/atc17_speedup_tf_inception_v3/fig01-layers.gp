# Sync windows: inception_v3, 32 nodes x 1 GPU, 40 Gbit/s, poseidon (simgrid)
# Written by possim report (possim 44b92de). Run `gnuplot fig01-layers.gp` in this folder
# to draw fig01-layers.svg and fig01-layers.png again from fig01-layers.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,1400 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-layers.svg'
set title 'Sync windows: inception_v3, 32 nodes x 1 GPU, 40 Gbit/s, poseidon (simgrid)'
set xlabel 'time from the iteration''s start (ms)'
set ytics ('fc' 0, 'Mixed_7c.branch3x3dbl_3a.bn' 5, 'Mixed_7c.branch3x3dbl_1.conv' 10, 'Mixed_7c.branch3x3_1.bn' 15, 'Mixed_7b.branch_pool.conv' 20, 'Mixed_7b.branch3x3dbl_2.bn' 25, 'Mixed_7b.branch3x3_2b.conv' 30, 'Mixed_7b.branch1x1.bn' 35, 'Mixed_7a.branch7x7x3_3.conv' 40, 'Mixed_7a.branch3x3_2.bn' 45, 'aux.conv1.bn' 50, 'Mixed_6e.branch_pool.conv' 55, 'Mixed_6e.branch7x7dbl_3.bn' 60, 'Mixed_6e.branch7x7dbl_1.conv' 65, 'Mixed_6e.branch7x7_1.bn' 70, 'Mixed_6d.branch_pool.conv' 75, 'Mixed_6d.branch7x7dbl_3.bn' 80, 'Mixed_6d.branch7x7dbl_1.conv' 85, 'Mixed_6d.branch7x7_1.bn' 90, 'Mixed_6c.branch_pool.conv' 95, 'Mixed_6c.branch7x7dbl_3.bn' 100, 'Mixed_6c.branch7x7dbl_1.conv' 105, 'Mixed_6c.branch7x7_1.bn' 110, 'Mixed_6b.branch_pool.conv' 115, 'Mixed_6b.branch7x7dbl_3.bn' 120, 'Mixed_6b.branch7x7dbl_1.conv' 125, 'Mixed_6b.branch7x7_1.bn' 130, 'Mixed_6a.branch3x3dbl_3.conv' 135, 'Mixed_6a.branch3x3.bn' 140, 'Mixed_5d.branch3x3dbl_3.conv' 145, 'Mixed_5d.branch5x5_2.bn' 150, 'Mixed_5d.branch1x1.conv' 155, 'Mixed_5c.branch3x3dbl_2.bn' 160, 'Mixed_5c.branch5x5_2.conv' 165, 'Mixed_5b.branch_pool.bn' 170, 'Mixed_5b.branch3x3dbl_2.conv' 175, 'Mixed_5b.branch5x5_1.bn' 180, 'Conv2d_4a_3x3.conv' 185, 'Conv2d_2a_3x3.bn' 190)
set ytics font ',9'
set yrange [193.5:-0.5]
set xrange [0:764.021]
set grid xtics
set key outside top center horizontal box opaque
set arrow from 741.768, graph 0 to 741.768, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'
plot 'fig01-layers.dat' index 0 using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '#1f77b4' title 'sfb', \
     'fig01-layers.dat' index 1 using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '#ff7f0e' title 'ps'
set terminal pngcairo size 760,1400 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-layers.png'
replot
unset output
