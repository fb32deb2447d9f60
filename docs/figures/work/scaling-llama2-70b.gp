# figure scaling-study llama2-70b (scripts/scaling-study.py)
set terminal svg size 900,600 noenhanced font 'sans,13' background 'white'
set output 'docs/figures/scaling-llama2-70b.svg'
set title 'Simulated throughput per GPU: llama2-70b, 80 layers, global batch 1024 x 4096 tokens'
set xlabel 'GPUs (log2 scale)'
set ylabel 'throughput per GPU (tokens/s)'
set logscale x 2
set xtics ('256' 256, '512' 512, '1024' 1024, '2048' 2048, '4096' 4096, '8192' 8192, '16384' 16384)
set yrange [0:*]
set key inside left bottom box opaque
set grid
set y2label 'MFU (% of 989.4 TFLOP/s)'
set link y2 via y*0.0449253 inverse y/0.0449253
set y2tics 10 format '%.0f'
set ytics nomirror
set offsets graph 0.05, graph 0.05, graph 0.08, 0
$D_0_0 << EOD
256 823.9
512 797.7
1024 750.0
2048 669.9
4096 551.8
8192 407.7
16384 267.3
EOD
$D_0_1 << EOD
256 834.5
512 790.1
1024 745.0
2048 668.7
4096 554.9
8192 413.9
16384 274.1
EOD
$D_0_2 << EOD
256 992.3
512 938.3
1024 846.4
2048 707.6
4096 532.8
8192 356.5
16384 214.3
EOD
plot $D_0_0 using 1:2 with linespoints lw 2 pt 5 ps 1.5 lc 1 title 'TP 8 x PP 4', \
     $D_0_1 using 1:2 with linespoints lw 2 pt 7 ps 1.5 lc 2 title 'TP 8 x PP 8', \
     $D_0_2 using 1:2 with linespoints lw 2 pt 9 ps 1.5 lc 3 title 'TP 4 x PP 8'
