# figure scaling-study llama2-70b (scripts/scaling-study.py)
set terminal svg size 900,600 noenhanced font 'sans,13' background 'white'
set output 'docs/figures/scaling-llama2-70b.svg'
set title 'Simulated throughput per GPU: llama2-70b, 16 layers (of 80), global batch 1024 x 4096 tokens'
set xlabel 'GPUs (log2 scale)'
set ylabel 'throughput per GPU (tokens/s)'
set logscale x 2
set xtics ('256' 256, '512' 512, '1024' 1024, '2048' 2048, '4096' 4096, '8192' 8192, '16384' 16384)
set yrange [0:*]
set key inside left bottom box opaque
set grid
set y2label 'MFU (% of 989.4 TFLOP/s)'
set link y2 via y*0.00911225 inverse y/0.00911225
set y2tics 10 format '%.0f'
set ytics nomirror
set offsets graph 0.05, graph 0.05, graph 0.08, 0
$D_0_0 << EOD
256 3879.3
512 3759.2
1024 3539.7
2048 3168.4
4096 2615.7
8192 1932.0
16384 1256.8
EOD
$D_0_1 << EOD
256 3738.6
512 3528.7
1024 3339.3
2048 3015.1
4096 2523.2
8192 1899.2
16384 1264.5
EOD
$D_0_2 << EOD
256 4456.1
512 4227.6
1024 3834.2
2048 3231.9
4096 2457.9
8192 1659.2
16384 1001.7
EOD
plot $D_0_0 using 1:2 with linespoints lw 2 pt 5 ps 1.5 lc 1 title 'TP 8 x PP 4', \
     $D_0_1 using 1:2 with linespoints lw 2 pt 7 ps 1.5 lc 2 title 'TP 8 x PP 8', \
     $D_0_2 using 1:2 with linespoints lw 2 pt 9 ps 1.5 lc 3 title 'TP 4 x PP 8'
