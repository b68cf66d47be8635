# Plots atoll-bench v3 --baseline output: Atoll's time over Box2D v3's per
# scene at 1 and 2 threads (below 1: Atoll faster).
#   gnuplot -e "in='docs/results/v3_atoll.csv'; out='docs/img/v3/ratio.png'" bench/v3_plot.gp
set terminal pngcairo size 900,420 font ",10" noenhanced
set output out
set datafile separator ","
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel "Atoll time / Box2D v3 time"
set yrange [0:*]
set grid ytics
set xtics rotate by -30
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2
plot "< awk -F, 'NR>1 && $2==1' ".in using 18:xtic(1) title "1 thread", \
     "< awk -F, 'NR>1 && $2==2' ".in using 18 title "2 threads"
