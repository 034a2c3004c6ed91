# Sync windows: resnet50, 32 nodes x 8 GPU, 25 Gbit/s, poseidon (simgrid)
# Written by possim report (possim fc711f6). Run `gnuplot fig01-layers.gp` in this folder
# to draw fig01-layers.svg and fig01-layers.png again from fig01-layers.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,1400 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-layers.svg'
set title 'Sync windows: resnet50, 32 nodes x 8 GPU, 25 Gbit/s, poseidon (simgrid)'
set xlabel 'time from the iteration''s start (ms)'
set ytics ('fc' 0, 'layer4.2.bn2' 3, 'layer4.2.conv1' 6, 'layer4.1.bn2' 9, 'layer4.1.conv1' 12, 'layer4.0.bn3' 15, 'layer4.0.conv2' 18, 'layer3.5.bn3' 21, 'layer3.5.conv2' 24, 'layer3.4.bn3' 27, 'layer3.4.conv2' 30, 'layer3.3.bn3' 33, 'layer3.3.conv2' 36, 'layer3.2.bn3' 39, 'layer3.2.conv2' 42, 'layer3.1.bn3' 45, 'layer3.1.conv2' 48, 'layer3.0.downsample.1' 51, 'layer3.0.conv3' 54, 'layer3.0.bn1' 57, 'layer2.3.conv3' 60, 'layer2.3.bn1' 63, 'layer2.2.conv3' 66, 'layer2.2.bn1' 69, 'layer2.1.conv3' 72, 'layer2.1.bn1' 75, 'layer2.0.downsample.0' 78, 'layer2.0.bn2' 81, 'layer2.0.conv1' 84, 'layer1.2.bn2' 87, 'layer1.2.conv1' 90, 'layer1.1.bn2' 93, 'layer1.1.conv1' 96, 'layer1.0.bn3' 99, 'layer1.0.conv2' 102, 'bn1' 105)
set ytics font ',9'
set yrange [106.5:-0.5]
set xrange [0:227.936]
set grid xtics
set key outside top center horizontal box opaque
set arrow from 221.297, graph 0 to 221.297, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'
plot 'fig01-layers.dat' index 0 using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '#ff7f0e' title 'ps'
set terminal pngcairo size 760,1400 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-layers.png'
replot
unset output
