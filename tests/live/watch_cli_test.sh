#!/usr/bin/env bash
# `lpsim watch` and `lpsim jobs` against a running `lpsim demo --live`, over
# real sockets on 127.0.0.1: the URL from RUN_DIR/live.url, a bounded stream
# of loss values as JSON, a reduced per-tensor stream, the job listing (with
# the break prediction of a job on a target), a refused query and bad flags (exit 2), a knob command seen in the finding
# stream and the listing, and an agent that is gone (exit 1).
#   watch_cli_test.sh LPSIM_BIN OUT_DIR
set -u
lpsim=$1
out=$2
rm -rf "$out" && mkdir -p "$out"
targeted=
fail() { echo "FAIL: $*" >&2; kill "$demo" $targeted 2>/dev/null; exit 1; }

# The URL a job started in the background announces: waits for RUN_DIR's
# live.url (up to a minute) while the job (PID) lives.
job_url() {  # RUN_DIR PID
  for _ in $(seq 1 600); do
    [ -s "$1/live.url" ] && break
    kill -0 "$2" 2>/dev/null || fail "lpsim demo --live ($1) exited: $(cat "$1.err")"
    sleep 0.1
  done
  cat "$1/live.url" || fail "no live.url in $1"
}

"$lpsim" demo --live --steps 200000 --quiet --run-dir "$out/run" 2>"$out/run.err" >/dev/null &
demo=$!
url=$(job_url "$out/run" $demo) || exit 1
echo "agent at $url"

# A second job on the same port: exit 2, the flag named, no run left behind.
port=$(echo "$url" | sed -E 's#^http://[^:]+:([0-9]+)/.*#\1#')
code=0
"$lpsim" demo --live --live-port "$port" --steps 5 --quiet --run-dir "$out/second" 2>"$out/busy.err" >/dev/null || code=$?
[ $code -eq 2 ] || fail "a busy --live-port exits $code, not 2: $(cat "$out/busy.err")"
grep -q -- "--live-port" "$out/busy.err" || fail "the busy-port error does not name --live-port: $(cat "$out/busy.err")"
[ ! -e "$out/second/run.db" ] || fail "a busy port left a run behind"

timeout 60 "$lpsim" watch "$url" --name '^loss$' --count 5 --json >"$out/loss.jsonl" || fail "watch --name loss failed"
[ "$(wc -l <"$out/loss.jsonl")" -eq 5 ] || fail "expected 5 loss events, got: $(cat "$out/loss.jsonl")"
grep -q '"kind":"scalar","name":"loss"' "$out/loss.jsonl" || fail "not loss events: $(cat "$out/loss.jsonl")"

timeout 60 "$lpsim" watch "$url" --tensor '^fc1$' --role activation --field underflow_pct --format e4m3fn \
  --every 5 --count 2 >"$out/fc1.txt" || fail "watch --tensor failed"
[ "$(wc -l <"$out/fc1.txt")" -eq 2 ] || fail "expected 2 windows: $(cat "$out/fc1.txt")"
grep -q '^steps [0-9]*-[0-9]* last of [0-9]*  fc1  activation  e4m3fn/delayed16  underflow_pct=' "$out/fc1.txt" ||
  fail "unexpected line: $(cat "$out/fc1.txt")"

timeout 30 "$lpsim" jobs "$url" >"$out/jobs.txt" || fail "jobs failed"
grep -q "^run " "$out/jobs.txt" || fail "the job is not listed: $(cat "$out/jobs.txt")"

# A job on a target lists its break prediction so far (info.predictions);
# the job without a target has none.
"$lpsim" demo --live --target fp16-npu-ftz --steps 200000 --quiet --run-dir "$out/targeted" \
  2>"$out/targeted.err" >/dev/null &
targeted=$!
url2=$(job_url "$out/targeted" $targeted) || exit 1
timeout 30 "$lpsim" jobs "$url" "$url2" >"$out/jobs2.txt" || fail "jobs of two agents failed"
grep -Eq "^targeted .*fp16-npu-ftz: (no sign so far|breaks at step [0-9]+ \(lp_[a-z_]+\))" "$out/jobs2.txt" ||
  fail "the job on a target lists no prediction: $(cat "$out/jobs2.txt")"
grep -q "^run .*fp16-npu-ftz" "$out/jobs2.txt" && fail "the job without a target lists a prediction: $(cat "$out/jobs2.txt")"
timeout 30 "$lpsim" jobs "$url2" --json >"$out/jobs2.json" || fail "jobs --json failed"
grep -q '"target": "fp16-npu-ftz"' "$out/jobs2.json" || fail "jobs --json lacks info.predictions: $(cat "$out/jobs2.json")"
kill "$targeted"
wait "$targeted" 2>/dev/null
targeted=

timeout 30 "$lpsim" watch "$url" --query '{"kind": "tensor"}' 2>"$out/bad.err"
code=$?
[ $code -eq 2 ] || fail "a bad query exits $code, not 2"
grep -q "unknown kind 'tensor'" "$out/bad.err" || fail "no reason given: $(cat "$out/bad.err")"
[ "$(wc -l <"$out/bad.err")" -eq 1 ] || fail "the error is not one line: $(cat "$out/bad.err")"

# Bad input never reaches the agent: exit 2 and one line saying what to do.
"$lpsim" watch "$url" --query '{}' --tensor fc1 2>"$out/both.err"
code=$?
[ $code -eq 2 ] || fail "--query with --tensor exits $code, not 2"
grep -q "give one or the other" "$out/both.err" || fail "no reason given: $(cat "$out/both.err")"
"$lpsim" watch "ftp://127.0.0.1:1/" 2>"$out/url.err"
code=$?
[ $code -eq 2 ] || fail "a non-http URL exits $code, not 2"

# The finding stream carries the knob command a client sends (jobs --json
# then shows the acknowledgement in the knob's state).
timeout 60 "$lpsim" watch "$url" --kind finding --count 1 --json >"$out/knob.jsonl" &
watcher=$!
sleep 1
curl -s -m 30 -X POST -H 'Content-Type: application/json' -d '{"value": 2}' "${url}api/knobs/every"   >"$out/post.json" || fail "POST /api/knobs/every failed"
grep -q '"status":"applied"' "$out/post.json" || fail "the knob was not applied: $(cat "$out/post.json")"
wait $watcher || fail "watch --kind finding failed"
grep -q '"rule":"live_knob"' "$out/knob.jsonl" || fail "no live_knob finding: $(cat "$out/knob.jsonl")"
timeout 30 "$lpsim" jobs "$url" --json >"$out/jobs.json" || fail "jobs --json failed"
grep -q '"rule": "live_knob"' "$out/jobs.json" || fail "jobs --json lacks the knob finding"

kill "$demo"
wait "$demo" 2>/dev/null

# An agent that is gone: exit 1 (not the user's input), one line.
"$lpsim" jobs "$url" >/dev/null 2>&1
code=$?
[ $code -eq 1 ] || fail "jobs on a stopped agent exits $code, not 1"
echo "ok"
