# Where an iteration goes: resnet50, 32 nodes x 8 GPU, 25 Gbit/s
# Written by possim report (possim fc711f6). Run `gnuplot fig01-time.gp` in this folder
# to draw fig01-time.svg and fig01-time.png again from fig01-time.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-time.svg'
set title 'Where an iteration goes: resnet50, 32 nodes x 8 GPU, 25 Gbit/s'
set ylabel 'seconds per iteration'
set grid ytics
set key outside top center horizontal box opaque
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set yrange [0:0.5]
set xtics nomirror
plot 'fig01-time.dat' using 2:xtic(1) title 'compute' lc rgb '#1f77b4', \
     '' using 3 title 'net' lc rgb '#d62728', \
     '' using 4 title 'PCIe' lc rgb '#ff7f0e', \
     '' using 5 title 'apply' lc rgb '#8c564b'
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-time.png'
replot
unset output
