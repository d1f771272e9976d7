#!/usr/bin/env bash
# Progress lines (issue 19): `cdclake apply` of a large file, `optimize`, `vacuum`, `repair` and
# a snapshot diff (`apply --from-snapshots`) show a
# redrawn progress line with how far, the rate and the time left on a terminal (a pseudo-terminal
# from util-linux's `script`), and print nothing of it into a pipe or a file.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
command -v script > /dev/null || fail "script (util-linux) is missing"

python3 - <<'PY'
with open("big.csv", "w") as f:
    f.write("id,v,seq\n")
    for i in range(400000):
        f.write(f"{i},value-{i * 7919 % 100003},{i}\n")
PY
on_terminal() { script -qec "$*" /dev/null; }

out=$(on_terminal "$bin" apply --target t1 --keys id --sequence-by seq big.csv)
grep -q $'\r\033\\[Kreading: ' <<<"$out" || fail "no reading line on a terminal: $(cat -v <<<"$out" | head -5)"
grep -q "of [0-9.]* MB (100%)" <<<"$out" || fail "reading never reached 100%: $(cat -v <<<"$out" | head -5)"
grep -q "applying: 400,000 rows..." <<<"$out" || fail "no applying line: $(cat -v <<<"$out" | head -5)"
grep -q "rows applied *400000" <<<"$out" || fail "the summary is missing: $(cat -v <<<"$out")"

# In a pipe: the same command prints its summary and nothing of the progress line.
piped=$("$bin" apply --target t2 --keys id --sequence-by seq big.csv 2>&1 | cat)
if grep -q $'\033\\[K\\|reading: ' <<<"$piped"; then fail "progress in a pipe: $(cat -v <<<"$piped" | head -3)"; fi
grep -q "rows applied *400000" <<<"$piped" || fail "the piped summary is missing"

# optimize: many small files (one per batch of 20,000 rows) merged, with a files line.
"$bin" apply --target t3 --keys id --sequence-by seq --batch-size 20000 big.csv > /dev/null
out=$(on_terminal "$bin" optimize t3)
grep -q $'\r\033\\[Koptimize: 20 of 20 files (100%)' <<<"$out" || fail "no optimize line: $(cat -v <<<"$out" | head -3)"
grep -q "rewrote 20 files" <<<"$out" || fail "optimize did not rewrite: $(cat -v <<<"$out")"
piped=$("$bin" vacuum t3 --retain-hours 0 2>&1 | cat)
if grep -q $'\033\\[K' <<<"$piped"; then fail "progress in a piped vacuum"; fi
"$bin" apply --target t4 --keys id --sequence-by seq --batch-size 20000 big.csv > /dev/null
"$bin" optimize t4 > /dev/null
out=$(on_terminal "$bin" vacuum t4 --retain-hours 0)
grep -q $'\r\033\\[Kvacuum: 20 of 20 files (100%)' <<<"$out" || fail "no vacuum line: $(cat -v <<<"$out" | head -3)"
# repair: the index log replayed, commit by commit.
out=$(on_terminal "$bin" repair t4)
grep -q $'\r\033\\[Kreplaying the index log: [0-9]* of [0-9]* commits (100%)' <<<"$out" ||
  fail "no repair line: $(cat -v <<<"$out" | head -3)"
piped=$("$bin" repair t4 2>&1 | cat)
if grep -q $'\033\\[K' <<<"$piped"; then fail "progress in a piped repair"; fi
# A snapshot diff: snapshot by snapshot.
mkdir snaps
for v in 1 2 3; do
  python3 -c "
import sys
print('id,v')
for i in range(50000): print(f'{i},{(i * $v) % 977}')" > "snaps/snapshot_$v.csv"
done
out=$(on_terminal "$bin" apply --target t5 --keys id --from-snapshots snaps)
grep -q $'\r\033\\[Ksnapshot diff: 3 snapshots...' <<<"$out" || fail "no snapshot line: $(cat -v <<<"$out" | head -3)"
grep -q $'\r\033\\[Ksnapshot diff: [12] of 3 snapshots' <<<"$out" || fail "no snapshot progress: $(cat -v <<<"$out" | head -3)"
echo "progress test passed"
