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
256 822.1
512 796.0
1024 748.5
2048 668.7
4096 551.0
8192 407.2
16384 267.0
EOD
$D_0_1 << EOD
256 830.8
512 786.7
1024 742.0
2048 666.1
4096 553.0
8192 412.7
16384 273.4
EOD
$D_0_2 << EOD
256 987.0
512 933.6
1024 842.3
2048 704.6
4096 530.8
8192 355.4
16384 213.8
EOD
plot $D_0_0 using 1:2 with linespoints lw 2 pt 5 ps 1.5 lc 1 title 'TP 8 x PP 4', \
     $D_0_1 using 1:2 with linespoints lw 2 pt 7 ps 1.5 lc 2 title 'TP 8 x PP 8', \
     $D_0_2 using 1:2 with linespoints lw 2 pt 9 ps 1.5 lc 3 title 'TP 4 x PP 8'
