#!/bin/bash
# session 60 probe: from the repository root on the GPU machine
set -u
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_TASKS=$PWD/tasks KRL_CACHE_DIR=/tmp/kc
T0=$(date +%s); el() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== batch (mish rule on/off) at $(el) s"
timeout 150 build/krl batch .probe/batch.txt --shapes tiny,kb0,kb1 --json > $OUT/batch.jsonl 2> $OUT/batch.err
echo "batch exit $?"
python3 - <<'PY'
import json,os
for l in open(os.environ['OUT']+'/batch.jsonl'):
    try: r=json.loads(l)
    except Exception: continue
    print(r.get('candidate','?')[-12:], r.get('task','?')[:30], r.get('verdict'), r.get('speedup'), r.get('cand_ms') or r.get('ms') or r.get('best_ms'), r.get('reason','')[:80])
PY
echo "== plan_profile at $(el) s"
for f in p5 p16 p16off p4 p4off p54 p93 p49 p91 p32 p19 p52 p52off p34 p60; do
  n=$(echo $f | sed 's/p\([0-9]*\).*/\1/')
  echo "-- $f"
  timeout 40 build/bench/plan_profile level2/$n --shapes kb1 --top 5 --candidate .probe/$f.cu 2>&1 | grep -vE "^\s*$" | head -12
done > $OUT/profile.txt 2>&1
grep -E "^--|plan|ms " $OUT/profile.txt | head -150
echo "== cudnn of torch at $(el) s"
CD=$(python3 -c "import nvidia.cudnn as c; print(list(c.__path__)[0])" 2>/dev/null)
echo "torch cudnn dir: $CD"; ls $CD/lib 2>/dev/null | head -3
if [ -n "$CD" ]; then
 for f in p5 p54 p32; do
  n=$(echo $f | sed 's/p\([0-9]*\).*/\1/')
  echo "-- $f with torch's cuDNN"
  LD_LIBRARY_PATH=$CD/lib:$PWD/.devlibs timeout 40 build/bench/plan_profile level2/$n --shapes kb1 --top 3 --candidate .probe/$f.cu 2>&1 | head -8
 done
fi
echo "== opt_gpu_gemm_epi at $(el) s"
KRL_BIN=$PWD/build/krl timeout 150 build/tests/opt_gpu_gemm_epi > $OUT/gemm_epi.log 2>&1; echo "exit $?"; tail -5 $OUT/gemm_epi.log
echo "== torch.compile kernels at $(el) s"
for p in 5_ 54_ 91_ 49_ 32_ 19_ 52_ 34_ 93_ 60_; do
  [ $(el) -gt 540 ] && break
  timeout $((580 - $(el))) python3 bench/torch_kernels.py --compile .kb/kb1/level2/${p}*.py 2>&1 | grep -v Warning | head -16
done | tee $OUT/compile_kernels.txt
echo "done at $(el) s"
