# figure scaling-study gpt3-175b (scripts/scaling-study.py)
set terminal svg size 900,600 noenhanced font 'sans,13' background 'white'
set output 'docs/figures/scaling-gpt3-175b.svg'
set title 'Simulated throughput per GPU: gpt3-175b, 96 layers, global batch 1536 x 2048 tokens'
set xlabel 'GPUs (log2 scale)'
set ylabel 'throughput per GPU (tokens/s)'
set logscale x 2
set xtics ('256' 256, '512' 512, '1024' 1024, '2048' 2048, '4096' 4096, '8192' 8192, '16384' 16384)
set yrange [0:*]
set key inside left bottom box opaque
set grid
set y2label 'MFU (% of 989.4 TFLOP/s)'
set link y2 via y*0.108791 inverse y/0.108791
set y2tics 10 format '%.0f'
set ytics nomirror
set offsets graph 0.05, graph 0.05, graph 0.08, 0
$D_0_0 << EOD
512 407.0
1024 377.9
2048 344.4
4096 292.5
8192 224.7
16384 153.4
EOD
$D_0_1 << EOD
256 423.6
EOD
$D_0_2 << EOD
512 385.4
1024 370.3
2048 343.9
4096 297.2
8192 233.6
16384 163.6
EOD
$D_0_3 << EOD
256 393.3
EOD
$D_0_4 << EOD
1024 435.3
2048 378.9
4096 301.0
8192 213.2
16384 134.6
EOD
$D_0_5 << EOD
256 453.8
512 447.3
EOD
plot $D_0_0 using 1:2 with linespoints lw 2 pt 5 ps 1.5 lc 1 title 'TP 8 x PP 8', \
     $D_0_1 using 1:2 with points pt 4 ps 1.8 lc 1 notitle, \
     $D_0_2 using 1:2 with linespoints lw 2 pt 7 ps 1.5 lc 2 title 'TP 8 x PP 16', \
     $D_0_3 using 1:2 with points pt 6 ps 1.8 lc 2 notitle, \
     $D_0_4 using 1:2 with linespoints lw 2 pt 9 ps 1.5 lc 3 title 'TP 4 x PP 16', \
     $D_0_5 using 1:2 with points pt 8 ps 1.8 lc 3 notitle, \
     keyentry with points pt 4 ps 1.8 lc 'black' title 'hollow: out of memory'
