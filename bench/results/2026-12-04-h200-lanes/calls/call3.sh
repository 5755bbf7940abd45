#!/bin/bash
set -u
T0=$(date +%s)
[ -d build/bench ] && [ -f build/krl ] || { tar xJf .gpu.tar.xz && rm -rf build && mv .gpubuild build; }
export LD_LIBRARY_PATH=$PWD/.devlibs KRL_CACHE_DIR=/tmp/krl-cache KRL_TASKS=$PWD/tasks KRL_COMMIT=$(cat .commit) KRL_BIN=$PWD/build/krl
bash .probe/kb0.sh $(( ${TOTAL_S:-540} - ($(date +%s) - T0) ))
echo "done after $(( $(date +%s) - T0 )) s" >> $OUT/call.log
