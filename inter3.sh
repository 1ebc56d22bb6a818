#!/bin/bash
R=$1; n=$2; NL=$3; C=$4; LAT=$5
for i in $(seq 1 $R); do
  echo "floor $(PYTHONHASHSEED=0 PYTHONPATH=/work/wt/percall/src /work/venv/bin/python /work/wt/percall/scripts/bench_engine.py --variant plain --n $n --N $NL --concurrency $C --latency $LAT)"
  echo "base $(PYTHONHASHSEED=0 PYTHONPATH=/tmp/percall/base/src /work/venv/bin/python /work/wt/percall/scripts/bench_engine.py --variant graph --n $n --N $NL --concurrency $C --latency $LAT)"
  echo "new $(PYTHONHASHSEED=0 PYTHONPATH=/work/wt/percall/src /work/venv/bin/python /work/wt/percall/scripts/bench_engine.py --variant graph --n $n --N $NL --concurrency $C --latency $LAT)"
done
