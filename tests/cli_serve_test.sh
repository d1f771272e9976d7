#!/usr/bin/env bash
# `cdclake serve` end to end (issue 19): two pipelines (the quick start and a small CSV one whose
# table blocks schema changes) served on a free loopback port. /metrics parses as Prometheus
# text and its counters equal the tables and the event log; a new file moves them; /readyz is
# ok, then names the flow a bad input stops (the others go on), then is ok again once the input
# is mended (the flow was tried again by itself); nothing but GET is answered; SIGTERM exits 0
# and a later `cdclake run` of both pipelines finds nothing left to do.
set -euo pipefail
bin=$1
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- serve log"; tail -40 "$work/serve.log" 2>/dev/null || true
  exit 1
}
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
cd "$work"

mkdir -p data/customers in
cp "$src/examples/quickstart/data/customers/customers-0001.json" data/customers/
cp -r "$src/examples/quickstart/data/orders" data/
printf 'id,v,seq\n1,a,1\n2,b,1\n' > in/f1.csv
cat > csv.sql <<SQL
CREATE OR REFRESH STREAMING TABLE plain.raw TBLPROPERTIES ('cdclake.schemaPolicy' = 'block')
AS SELECT * FROM STREAM(read_files('$work/in/*.csv', format => 'csv'));
SQL
pipelines=("$src/examples/quickstart/pipeline.sql" "$work/csv.sql")

: > serve.log  # there before the background job's redirection opens it
"$bin" serve "${pipelines[@]}" --var data="$work/data" --warehouse "$work/lake" \
  --listen 127.0.0.1:0 --interval 200ms > serve.out 2> serve.log &
pid=$!
port=
for _ in $(seq 1 300); do
  port=$(sed -n 's|.*serving on http://127.0.0.1:\([0-9]*\)/.*|\1|p' serve.log | head -1)
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "serve exited before listening"
  sleep 0.1
done
[ -n "$port" ] || fail "serve did not say where it listens"
url=http://127.0.0.1:$port

# Waits (at most 60 s) until the command succeeds.
wait_for() { # what command...
  local what=$1; shift
  for _ in $(seq 1 600); do
    if "$@" > /dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  fail "timed out waiting for $what"
}
ready() { curl -sf "$url/readyz"; }
wait_for "the first pass to be ready" ready
expect_eq "$(curl -s "$url/healthz")" "ok" "/healthz: "

# /metrics: every line a HELP, a TYPE or a sample of a declared family; histogram buckets
# cumulative and ending in +Inf = _count. Prints "name{labels} value" lines, sorted.
metrics() {
  curl -sf "$url/metrics" > metrics.txt || fail "/metrics failed"
  python3 - metrics.txt <<'PY'
import re, sys
families, samples = {}, []
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
label = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)')
for n, line in enumerate(open(sys.argv[1]), 1):
    line = line.rstrip("\n")
    if line.startswith("# HELP "):
        continue
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split(" ", 3)
        assert kind in ("counter", "gauge", "histogram"), line
        assert name not in families, "family declared twice: " + name
        families[name] = kind
        continue
    m = sample.match(line)
    assert m, "line %d is not a sample: %r" % (n, line)
    name, labels, value = m.group(1), m.group(3) or "", float(m.group(4))
    base = re.sub(r'_(bucket|sum|count)$', '', name)
    assert name in families or families.get(base) == "histogram", "undeclared: " + name
    parsed, rest = {}, labels
    while rest:
        lm = label.match(rest)
        assert lm, "bad labels on line %d: %r" % (n, labels)
        parsed[lm.group(1)] = lm.group(2)
        rest = rest[lm.end():]
    samples.append((name, parsed, value))
# Histograms: per flow, buckets cumulative, the last +Inf equal to _count.
buckets = {}
for name, labels, value in samples:
    if name.endswith("_bucket"):
        key = (name, tuple(sorted((k, v) for k, v in labels.items() if k != "le")))
        buckets.setdefault(key, []).append((labels["le"], value))
counts = {(n[:-len("_count")] + "_bucket", tuple(sorted(l.items()))): v
          for n, l, v in samples if n.endswith("_count")}
for key, series in buckets.items():
    values = [v for _, v in series]
    assert values == sorted(values), "buckets not cumulative: %r" % (series,)
    assert series[-1][0] == "+Inf", "last bucket is not +Inf: %r" % (series,)
    assert counts[key] == values[-1], "+Inf bucket %r != _count %r" % (values[-1], counts[key])
for name, labels, value in sorted(samples, key=lambda s: (s[0], sorted(s[1].items()))):
    if name.endswith("_bucket"):
        continue
    key = labels.get("flow") or labels.get("table") or ""
    print("%s{%s} %s" % (name, key, ("%d" % value) if value == int(value) else value))
PY
}
metric() { # name key
  metrics | awk -v k="$1{$2}" '$1 == k { print $2 }'
}
rows_of() { "$bin" show "$work/lake/$1" --format csv | tail -n +2 | grep -c . || true; }

m=$(metrics) || fail "/metrics does not parse: $(cat metrics.txt | head -20)"
expect_eq "$(metric cdclake_flow_rows_read_total shop.bronze_customers)" \
  "$(grep -c . data/customers/customers-0001.json)" "bronze_customers rows read: "
expect_eq "$(metric cdclake_flow_rows_read_total plain.raw)" "2" "plain.raw rows read: "
for t in shop/bronze_customers shop/customers shop/orders plain/raw; do
  name=${t/\//.}
  expect_eq "$(metric cdclake_table_rows "$name")" "$(rows_of "$t")" "$name rows: "
done
expect_eq "$(metric cdclake_flow_up customers_current)" "1" "customers_current up: "

# A new file: the flows reading it move, and the metrics say by how much.
before_read=$(metric cdclake_flow_rows_read_total customers_current)
before_batches=$(metric cdclake_flow_batches_total customers_current)
cp "$src/examples/quickstart/data/customers/customers-0002.json" data/customers/
added=$(grep -c . data/customers/customers-0002.json)
moved() {
  [ "$(metric cdclake_flow_rows_read_total customers_current)" = "$((before_read + added))" ]
}
wait_for "customers_current to read the new file" moved
[ "$(metric cdclake_flow_batches_total customers_current)" -gt "$before_batches" ] ||
  fail "batches did not move"
wait_for "the customers table to match /metrics" bash -c \
  "[ \"\$(curl -s $url/metrics | awk '\$1 ~ /^cdclake_table_rows\\{table=\"shop.customers\"/ {print \$2}')\" = \"\$('$bin' show '$work/lake/shop/customers' --format csv | tail -n +2 | grep -c .)\" ]"
wait_for "ready after the new file" ready

# A bad input: a new column in a table that blocks schema changes stops that flow only.
printf 'id,v,seq,extra\n3,c,1,x\n' > in/f2.csv
not_ready() { ! curl -sf "$url/readyz"; }
wait_for "/readyz to report the blocked flow" not_ready
body=$(curl -s "$url/readyz")
grep -q "flow plain.raw: failed" <<<"$body" || fail "/readyz does not name the flow: $body"
grep -q "cdclake.schemaPolicy = 'block'" <<<"$body" || fail "/readyz does not say why: $body"
grep -q "customers_current" <<<"$body" && fail "/readyz names a flow that is fine: $body"
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")" "503" "/readyz status: "
expect_eq "$(metric cdclake_flow_up plain.raw)" "0" "plain.raw up: "
expect_eq "$(metric cdclake_flow_up shop.bronze_orders)" "1" "bronze_orders up: "
# The other pipeline goes on meanwhile.
printf '{"before":null,"after":{"order_id":900,"customer_id":1,"amount":"1.00","status":"new"},"source":{"connector":"postgresql","name":"shop","ts_ms":1793520009000,"db":"shop","schema":"public","table":"orders","lsn":9000,"txId":900},"op":"c","ts_ms":1793520009001}\n' > data/orders/orders-0003.json
orders_moved() { [ "$(metric cdclake_flow_rows_read_total shop.bronze_orders)" -gt 8 ]; }
wait_for "bronze_orders to go on while plain.raw fails" orders_moved
# (The page is read whole first: grep -q leaving a pipe early would fail curl under pipefail.)
page=$(curl -s "$url/")
grep -q "cdclake.schemaPolicy" <<<"$page" || fail "the page does not show the failure: $page"
expect_eq "$(rows_of plain/raw)" "2" "plain.raw while blocked: "
# Mended: the flow is tried again by itself and the page and /readyz are ok again.
rm in/f2.csv
printf 'id,v,seq\n3,c,1\n' > in/f3.csv
wait_for "ready after the input was mended" ready
expect_eq "$(rows_of plain/raw)" "3" "plain.raw after the mend: "
[ "$(metric cdclake_flow_failures_total plain.raw)" -ge 1 ] || fail "no failure counted"

# Read-only: nothing but GET is served.
for method in POST PUT DELETE; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -X "$method" "$url/")
  [ "$code" -ge 400 ] || fail "$method / answered $code"
done
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' "$url/flow/no-such-flow")" "404" "unknown flow: "
# Bound to loopback, it answers loopback names only (a page cannot read it by DNS rebinding).
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: attacker.example:$port" "$url/metrics")" \
  "421" "a foreign Host header: "
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' -H "Host: localhost:$port" "$url/healthz")" \
  "200" "Host localhost: "

# SIGTERM: a clean stop, exit code 0, and nothing left for a later run.
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
expect_eq "$rc" "0" "serve's exit code after SIGTERM: "
grep -q "stopped" serve.log || fail "serve did not say it stopped"
for p in "${pipelines[@]}"; do
  out=$("$bin" run "$p" --var data="$work/data" --warehouse "$work/lake" --log-format json) ||
    fail "run after serve: $out"
  if grep -q '"event":"batch"' <<<"$out"; then fail "a run after serve found work: $out"; fi
done
# The same file twice, or a taken port, is refused before anything runs.
rc=0
"$bin" serve "$work/csv.sql" "$work/./csv.sql" --warehouse "$work/lake" --listen 127.0.0.1:0 \
  > twice.log 2>&1 || rc=$?
expect_eq "$rc" "1" "the same pipeline twice: "
grep -q "is given twice" twice.log || fail "not said: $(cat twice.log)"
python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1]); import sys; sys.stdout.flush(); time.sleep(30)' > taken.port &
holder=$!
for _ in $(seq 1 50); do [ -s taken.port ] && break; sleep 0.1; done
rc=0
"$bin" serve "$work/csv.sql" --warehouse "$work/lake" --listen "127.0.0.1:$(cat taken.port)" \
  > taken.log 2>&1 || rc=$?
kill "$holder" 2>/dev/null || true
expect_eq "$rc" "1" "a port in use: "
grep -q "cannot listen on 127.0.0.1:$(cat taken.port)" taken.log || fail "not said: $(cat taken.log)"
echo "serve test passed"
