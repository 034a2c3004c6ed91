# Least swept NIC for 90% scaling efficiency: resnet50, 8 GPU/node
# Written by possim report (possim fc711f6). Run `gnuplot fig01-min-bandwidth.gp` in this folder
# to draw fig01-min-bandwidth.svg and fig01-min-bandwidth.png again from fig01-min-bandwidth.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 760,460 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-min-bandwidth.svg'
set title 'Least swept NIC for 90% scaling efficiency: resnet50, 8 GPU/node'
set ylabel 'Gbit/s per node (log)'
set logscale y
set grid ytics
set key outside top center horizontal box opaque
set datafile missing '?'
set xtics nomirror
set yrange [12.5:800]
set xrange [-0.6:3.6]
set xtics ('allreduce' 0, 'hier_allreduce' 1, 'poseidon' 2, 'tree_allreduce' 3)
plot 'fig01-min-bandwidth.dat' using ($0 + -0.25):(strcol(2) eq 'not reached' ? NaN : column(2)):($0 + -0.3625):($0 + -0.1375):(12.5):(strcol(2) eq 'not reached' ? NaN : column(2)) with boxxyerror fs solid 0.85 border lc rgb '#333333' lc rgb '#4e79a7' title '2 nodes', \
     '' using ($0 + -0.25):(strcol(2) eq 'not reached' ? 800 : NaN):($0 + -0.3625):($0 + -0.1375):(12.5):(strcol(2) eq 'not reached' ? 800 : NaN) with boxxyerror fs pattern 4 border lc rgb '#4e79a7' lc rgb '#4e79a7' notitle, \
     '' using ($0 + -0.25):(695.652):(strcol(2) eq 'not reached' ? 'not reached' : '') with labels rotate by 90 right font ',9' tc rgb '#333333' notitle, \
     '' using ($0 + 0):(strcol(3) eq 'not reached' ? NaN : column(3)):($0 + -0.1125):($0 + 0.1125):(12.5):(strcol(3) eq 'not reached' ? NaN : column(3)) with boxxyerror fs solid 0.85 border lc rgb '#333333' lc rgb '#f28e2b' title '8 nodes', \
     '' using ($0 + 0):(strcol(3) eq 'not reached' ? 800 : NaN):($0 + -0.1125):($0 + 0.1125):(12.5):(strcol(3) eq 'not reached' ? 800 : NaN) with boxxyerror fs pattern 4 border lc rgb '#f28e2b' lc rgb '#f28e2b' notitle, \
     '' using ($0 + 0):(695.652):(strcol(3) eq 'not reached' ? 'not reached' : '') with labels rotate by 90 right font ',9' tc rgb '#333333' notitle, \
     '' using ($0 + 0.25):(strcol(4) eq 'not reached' ? NaN : column(4)):($0 + 0.1375):($0 + 0.3625):(12.5):(strcol(4) eq 'not reached' ? NaN : column(4)) with boxxyerror fs solid 0.85 border lc rgb '#333333' lc rgb '#59a14f' title '32 nodes', \
     '' using ($0 + 0.25):(strcol(4) eq 'not reached' ? 800 : NaN):($0 + 0.1375):($0 + 0.3625):(12.5):(strcol(4) eq 'not reached' ? 800 : NaN) with boxxyerror fs pattern 4 border lc rgb '#59a14f' lc rgb '#59a14f' notitle, \
     '' using ($0 + 0.25):(695.652):(strcol(4) eq 'not reached' ? 'not reached' : '') with labels rotate by 90 right font ',9' tc rgb '#333333' notitle
set terminal pngcairo size 760,460 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-min-bandwidth.png'
replot
unset output
