#!/bin/bash
# policy-mode training then eval; resumable from .accept (train.db.xz, eval.db.xz)
set -u
nvidia-smi --query-gpu=name,uuid --format=csv >> $OUT/call.log 2>&1
export KRL_COMMIT=$(cat .commit)
LEVEL=2 TRAIN_BUDGET=8 ROUND0=policy EVAL_BUDGET=8 EVAL_AT=4 TRAIN_RESUME=$PWD/.accept \
TRAIN_SECONDS=${TRAIN_SECONDS:-480} EVAL_SECONDS=${EVAL_SECONDS:-400} OUT=$OUT \
  bash bench/run_gpu.sh train >> $OUT/call.log 2>&1
ls -la $OUT >> $OUT/call.log
