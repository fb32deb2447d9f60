# figure scaling-study gpt3-175b (scripts/scaling-study.py)
set terminal svg size 900,600 noenhanced font 'sans,13' background 'white'
set output 'docs/figures/scaling-gpt3-175b.svg'
set title 'Simulated throughput per GPU: gpt3-175b, 16 layers (of 96), global batch 1536 x 2048 tokens'
set xlabel 'GPUs (log2 scale)'
set ylabel 'throughput per GPU (tokens/s)'
set logscale x 2
set xtics ('256' 256, '512' 512, '1024' 1024, '2048' 2048, '4096' 4096, '8192' 8192, '16384' 16384)
set yrange [0:*]
set key inside left bottom box opaque
set grid
set y2label 'MFU (% of 989.4 TFLOP/s)'
set link y2 via y*0.0184438 inverse y/0.0184438
set y2tics 10 format '%.0f'
set ytics nomirror
set offsets graph 0.05, graph 0.05, graph 0.08, 0
$D_0_0 << EOD
256 2233.1
512 2138.7
1024 1963.0
2048 1792.0
4096 1525.3
8192 1173.9
16384 800.1
EOD
$D_0_1 << EOD
256 1884.1
512 1841.5
1024 1760.8
2048 1603.8
4096 1403.1
8192 1120.4
16384 797.4
EOD
$D_0_2 << EOD
256 2165.3
512 2127.9
1024 2058.3
2048 1808.9
4096 1455.8
8192 1046.3
16384 668.4
EOD
plot $D_0_0 using 1:2 with linespoints lw 2 pt 5 ps 1.5 lc 1 title 'TP 8 x PP 8', \
     $D_0_1 using 1:2 with linespoints lw 2 pt 7 ps 1.5 lc 2 title 'TP 8 x PP 16', \
     $D_0_2 using 1:2 with linespoints lw 2 pt 9 ps 1.5 lc 3 title 'TP 4 x PP 16'
