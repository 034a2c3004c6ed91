# Predicted against measured throughput (traces/measured/caffe_ps.csv + traces/measured/cntk_1bit.csv + traces/measured/poseidon_caffe.csv + traces/measured/single_gpu.csv + traces/measured/tf_stock.csv)
# Written by possim report (possim 44b92de). Run `gnuplot fig01-measured.gp` in this folder
# to draw fig01-measured.svg and fig01-measured.png again from fig01-measured.dat.
set datafile separator '\t'
set encoding utf8
set terminal svg size 700,640 dynamic noenhanced font 'Sans,12' background rgb 'white'
set output 'fig01-measured.svg'
set title 'Predicted against measured throughput (traces/measured/caffe_ps.csv + traces/measured/cntk_1bit.csv + traces/measured/poseidon_caffe.csv + traces/measured/single_gpu.csv + traces/measured/tf_stock.csv)'
set xlabel 'measured images/s'
set ylabel 'predicted images/s'
set grid
set key outside top center horizontal box opaque
set size ratio -1
set xrange [0:950.4]
set yrange [0:950.4]
plot x with lines lw 1.5 lc rgb '#555555' title 'predicted = measured', \
     1.1 * x with lines dt 2 lc rgb '#999999' title '10% off', \
     0.9 * x with lines dt 2 lc rgb '#999999' notitle, \
     'fig01-measured.dat' index 0 using 1:2 with points pt 7 ps 1.2 lc rgb '#984ea3' title 'tf_stock', \
     'fig01-measured.dat' index 0 using 1:2:3 with labels offset char 1.6,0.4 font ',9' tc rgb '#984ea3' notitle
set terminal pngcairo size 700,640 noenhanced font 'Sans,10' background rgb 'white'
set output 'fig01-measured.png'
replot
unset output
