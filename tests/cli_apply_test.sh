#!/usr/bin/env bash
# End to end: `cdclake apply` on the four AUTO CDC documentation examples (testdata/autocdc-docs)
# in batches of 1, 3 and all rows, across files and formats; replays write nothing; bad rows go
# to <target>_quarantine with the counts conserved; usage errors exit 2 with clear messages.
set -euo pipefail
bin=$1
docs=$2/testdata/autocdc-docs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }

# A number from apply's summary: the first field after the label.
count() { sed -n "s/^$2  *\([0-9][0-9]*\).*/\1/p" <<<"$1"; }
# read = applied + discarded + quarantined (SEMANTICS §8).
conserved() {
  local r a d q
  r=$(count "$1" "rows read"); a=$(count "$1" "rows applied")
  d=$(count "$1" "rows discarded"); q=$(count "$1" "rows quarantined")
  [ -n "$r" ] && [ -n "$a" ] && [ -n "$d" ] && [ -n "$q" ] || fail "summary lacks counts: $1"
  [ "$r" -eq $((a + d + q)) ] || fail "read $r != applied $a + discarded $d + quarantined $q"
}
# The table's rows as CSV, header first, rows sorted.
rows() { local out; out=$("$bin" show "$1" --format csv); { head -n1 <<<"$out"; tail -n +2 <<<"$out" | LC_ALL=C sort; }; }
sorted_csv() { { head -n1 "$1"; tail -n +2 "$1" | LC_ALL=C sort; }; }
versions() { "$bin" history "$1" --format csv | tail -n +2 | cut -d, -f1 | sort -n | tr '\n' ' '; }

# The apply options params.json asks for, one per line (--schema from the input's types when
# $2 is "typed").
flow_args() {
  node -e '
    const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const out = ["--keys", p.keys.join(","), "--sequence-by", p.sequence_by,
                 "--scd", String(p.stored_as_scd_type)];
    if (p.apply_as_deletes) out.push("--delete-when", p.apply_as_deletes);
    if (p.apply_as_truncates) out.push("--truncate-when", p.apply_as_truncates);
    if (p.column_list) out.push("--columns", p.column_list.join(","));
    if (p.except_column_list) out.push("--except", p.except_column_list.join(","));
    if (p.track_history_column_list) out.push("--track-history", p.track_history_column_list.join(","));
    if (p.track_history_except_column_list)
      out.push("--track-history-except", p.track_history_except_column_list.join(","));
    if (p.ignore_null_updates) out.push("--ignore-null-updates");
    if (process.argv[2] === "typed")
      out.push("--schema", Object.entries(p.input_column_types).map(([k, v]) => `${k} ${v}`).join(", "));
    console.log(out.join("\n"));
  ' "$1" "$2"
}

examples=(scd1-users scd1-users-truncate scd2-users scd2-users-track-history-except-city)
runs=0
for ex in "${examples[@]}"; do
  dir=$docs/$ex
  [ -f "$dir/params.json" ] || fail "$dir/params.json missing"
  mapfile -t typed < <(flow_args "$dir/params.json" typed)
  mapfile -t inferred < <(flow_args "$dir/params.json" inferred)
  want=$(sorted_csv "$dir/expected.csv")
  n=$(($(wc -l <"$dir/input.csv") - 1))
  for size in 1 3 all; do
    for types in typed inferred; do
      t=$work/$ex-$size-$types
      batch=()
      [ "$size" = all ] || batch=(--batch-size "$size")
      if [ "$types" = typed ]; then args=("${typed[@]}"); else args=("${inferred[@]}"); fi
      out=$("$bin" apply --target "$t" "${args[@]}" "${batch[@]}" "$dir/input.csv") ||
        fail "$ex, batches of $size, $types: apply failed"
      expect_eq "$(rows "$t")" "$want" "$ex, batches of $size, $types: "
      conserved "$out"
      expect_eq "$(count "$out" "rows read")" "$n" "$ex rows read: "
      expect_eq "$(count "$out" "rows quarantined")" 0 "$ex quarantined: "
      want_batches=1
      [ "$size" = all ] || want_batches=$(((n + size - 1) / size))
      expect_eq "$(count "$out" "batches")" "$want_batches" "$ex batches of $size: "
      # The versions the summary lists are the table's versions.
      listed=$(sed -n 's/^versions written  *//p' <<<"$out" | tr -d ',')
      expect_eq "$listed " "$(versions "$t")" "$ex versions: "
      # The key's type: INT from --schema, else inferred BIGINT.
      if [ "$types" = typed ]; then ty=int; else ty=bigint; fi
      "$bin" schema "$t" | grep -qx "userId $ty" || fail "$ex $types: userId is not $ty: $("$bin" schema "$t")"
      runs=$((runs + 1))
    done
  done

  # Replaying the same file writes no new version: the file, applied whole with the same bytes,
  # is not read again.
  t=$work/$ex-all-typed
  before=$(ls "$t/_delta_log")
  out=$("$bin" apply --target "$t" "${typed[@]}" "$dir/input.csv")
  expect_eq "$(sed -n 's/^versions written  *//p' <<<"$out")" "none" "$ex replay: "
  expect_eq "$(count "$out" "rows read")" 0 "$ex replay read: "
  grep -q "input.csv: applied whole by an earlier run of flow '.*' (version [0-9]*, [0-9]* bytes, the same bytes now): not read again" <<<"$out" ||
    fail "$ex replay: no line for the file left out: $out"
  expect_eq "$(ls "$t/_delta_log")" "$before" "$ex replay log: "
  # Read again (--reset-position), in batches and without --schema (the target's types are
  # used): every row is discarded.
  out=$("$bin" apply --target "$t" "${inferred[@]}" --batch-size 2 --reset-position "$dir/input.csv")
  expect_eq "$(count "$out" "rows discarded")" "$n" "$ex replay discarded: "
  expect_eq "$(sed -n 's/^versions written  *//p' <<<"$out")" "none" "$ex replay in batches: "
  expect_eq "$(ls "$t/_delta_log")" "$before" "$ex replay in batches log: "
  expect_eq "$(rows "$t")" "$want" "$ex after replays: "

  # The input cut into two files (one CSV, one JSONL), batches across the cut.
  head -n 4 "$dir/input.csv" >"$work/$ex-part1.csv"
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
    const head = lines[0].split(",");
    for (const line of lines.slice(4)) {
      const cells = line.split(",");
      const obj = {};
      head.forEach((h, i) => {
        if (cells[i] === "") obj[h] = null;
        else obj[h] = /^-?\d+$/.test(cells[i]) ? Number(cells[i]) : cells[i];
      });
      console.log(JSON.stringify(obj));
    }
  ' "$dir/input.csv" >"$work/$ex-part2.jsonl"
  t=$work/$ex-two-files
  out=$("$bin" apply --target "$t" "${inferred[@]}" --batch-size 2 "$work/$ex-part1.csv" "$work/$ex-part2.jsonl")
  expect_eq "$(rows "$t")" "$want" "$ex two files: "
  expect_eq "$(count "$out" "rows read")" "$n" "$ex two files rows read: "
  expect_eq "$(count "$out" "batches")" $(((n + 1) / 2)) "$ex two files batches: "
done
[ "$runs" -eq 24 ] || fail "ran $runs example runs"

# --format for a file whose extension says nothing.
cp "$docs/scd1-users/input.csv" "$work/changes.txt"
mapfile -t scd1 < <(flow_args "$docs/scd1-users/params.json" typed)
mapfile -t scd1_inferred < <(flow_args "$docs/scd1-users/params.json" inferred)
if err=$("$bin" apply --target "$work/fmt" "${scd1[@]}" "$work/changes.txt" 2>&1); then fail "no format"; else rc=$?; fi
expect_eq "$rc" 2 "unknown extension: "
grep -q "give --format" <<<"$err" || fail "$err"
"$bin" apply --target "$work/fmt" "${scd1[@]}" --format csv "$work/changes.txt" >/dev/null
expect_eq "$(rows "$work/fmt")" "$(sorted_csv "$docs/scd1-users/expected.csv")" "--format csv: "

# SEQUENCE BY STRUCT(...): __START_AT/__END_AT are structs; a replay reads the members with
# the target's types and writes nothing.
t=$work/struct
"$bin" apply --target "$t" --keys userId --sequence-by "STRUCT(sequenceNum)" --scd 2 \
  --delete-when "operation = 'DELETE'" --except operation,sequenceNum "$docs/scd2-users/input.csv" >/dev/null
"$bin" schema "$t" | grep -q "^__START_AT struct" || fail "struct sequence: $("$bin" schema "$t")"
expect_eq "$("$bin" show "$t" --format csv | tail -n +2 | wc -l)" 7 "struct sequence rows: "
out=$("$bin" apply --target "$t" --keys userId --sequence-by "STRUCT(sequenceNum)" --scd 2 \
  --delete-when "operation = 'DELETE'" --except operation,sequenceNum "$docs/scd2-users/input.csv")
expect_eq "$(sed -n 's/^versions written  *//p' <<<"$out")" "none" "struct sequence replay: "

# Bad rows: a NULL key, a NULL sequence, 'abc' for an INT key, and an older update. They land in
# <target>_quarantine; the counts add up; the good rows are applied.
cat >"$work/bad.csv" <<'EOF'
userId,name,city,operation,sequenceNum
1,Ann,Oslo,INSERT,1
,NoKey,Rome,INSERT,2
2,Bob,Paris,INSERT,
abc,Bad,Lima,INSERT,3
3,Cy,Bern,INSERT,4
1,Ann,Bergen,UPDATE,0
EOF
for size in all 2; do
  t=$work/bad-$size
  batch=()
  [ "$size" = all ] || batch=(--batch-size "$size")
  out=$("$bin" apply --target "$t" --keys userId --sequence-by sequenceNum --except operation,sequenceNum \
    --schema "userId INT, sequenceNum INT" "${batch[@]}" "$work/bad.csv")
  conserved "$out"
  expect_eq "$(count "$out" "rows read")" 6 "bad rows ($size) read: "
  # The older update is discarded when its batch comes after the newer one's; in the same
  # batch the events are ordered first, and it counts as applied (it changes no row).
  expect_eq "$(($(count "$out" "rows applied") + $(count "$out" "rows discarded")))" 3 "bad rows ($size) applied + discarded: "
  [ "$size" = all ] || expect_eq "$(count "$out" "rows discarded")" 1 "bad rows ($size) discarded: "
  expect_eq "$(count "$out" "rows quarantined")" 3 "bad rows ($size) quarantined: "
  grep -q "^rows quarantined  *3  (in $t""_quarantine" <<<"$out" || fail "quarantine table not named: $out"
  expect_eq "$(rows "$t")" $'userId,name,city\n1,Ann,Oslo\n3,Cy,Bern' "bad rows ($size) target: "
  q=$("$bin" show "${t}_quarantine" --columns source_line,reason,raw --order-by source_line --format csv)
  expect_eq "$(tail -n +2 <<<"$q" | cut -d, -f1 | tr '\n' ' ')" "3 4 5 " "quarantined lines ($size): "
  grep -q "^3,.*userId" <<<"$q" || fail "NULL key reason: $q"
  grep -q "^4,.*sequence" <<<"$q" || fail "NULL sequence reason: $q"
  grep -q "^5,.*abc,Bad,Lima" <<<"$q" || fail "'abc' raw record: $q"
  expect_eq "$("$bin" show "${t}_quarantine" --columns source_file --format csv | tail -n +2 | sort -u)" \
    "$work/bad.csv" "quarantine source file: "
done

# An existing target's types hold for later files: 'xyz' in the BIGINT key column is
# quarantined, not read as a new STRING type.
t=$work/scd1-users-all-inferred
printf 'userId,name,city,operation,sequenceNum\nxyz,Q,Quito,INSERT,9\n127,Ana,Lima,INSERT,9\n' >"$work/later.csv"
out=$("$bin" apply --target "$t" "${scd1_inferred[@]}" "$work/later.csv")
expect_eq "$(count "$out" "rows applied")" 1 "later file applied: "
expect_eq "$(count "$out" "rows quarantined")" 1 "later file quarantined: "
"$bin" show "$t" --format csv | grep -qx "127,Ana,Lima" || fail "later file's row missing"
"$bin" schema "$t" | grep -qx "userId bigint" || fail "the key's type changed: $("$bin" schema "$t")"

# The column options reach the flow: IGNORE NULL UPDATES [ON | EXCEPT], COLUMNS, TRACK HISTORY.
printf 'id,a,b,op,seq\n1,x,p,U,1\n1,,,U,2\n' >"$work/nulls.csv"
printf 'id,a,b,op,seq\n1,x,p,U,1\n1,x,q,U,2\n1,y,q,U,3\n' >"$work/hist.csv"
n=0
check_option() {
  local file=$1 want=$2 t=$work/opt$((n += 1))
  shift 2
  "$bin" apply --target "$t" --keys id --sequence-by seq "$@" "$file" >/dev/null
  expect_eq "$("$bin" show "$t" --format csv)" "$want" "[$*]: "
}
check_option "$work/nulls.csv" $'id,a,b\n1,,' --except op,seq
check_option "$work/nulls.csv" $'id,a,b\n1,x,p' --except op,seq --ignore-null-updates
check_option "$work/nulls.csv" $'id,a,b\n1,x,' --except op,seq --ignore-null-updates-on a
check_option "$work/nulls.csv" $'id,a,b\n1,,p' --except op,seq --ignore-null-updates-except a
check_option "$work/nulls.csv" $'id,a\n1,' --columns id,a
history_rows() { "$bin" show "$1" --format csv --order-by __START_AT; }
for th in "" a "except a"; do
  t=$work/hist-${th// /-}
  opt=()
  [ -z "$th" ] || { if [ "$th" = a ]; then opt=(--track-history a); else opt=(--track-history-except a); fi; }
  "$bin" apply --target "$t" --keys id --sequence-by seq --scd 2 --except op,seq "${opt[@]}" "$work/hist.csv" >/dev/null
done
expect_eq "$(history_rows "$work/hist-")" $'id,a,b,__START_AT,__END_AT\n1,x,p,1,2\n1,x,q,2,3\n1,y,q,3,' "no TRACK HISTORY: "
expect_eq "$(history_rows "$work/hist-a")" $'id,a,b,__START_AT,__END_AT\n1,x,q,1,3\n1,y,q,3,' "--track-history a: "
expect_eq "$(history_rows "$work/hist-except-a")" $'id,a,b,__START_AT,__END_AT\n1,x,p,1,2\n1,y,q,2,' "--track-history-except a: "

# Usage errors exit 2 and create nothing.
usage() {
  local want=$1 t=$work/usage
  shift
  if err=$("$bin" apply --target "$t" "$@" 2>&1); then fail "accepted: $*"; else rc=$?; fi
  expect_eq "$rc" 2 "exit code of [$*]: "
  grep -q -- "$want" <<<"$err" || fail "[$*]: expected '$want' in: $err"
  [ ! -e "$t" ] || fail "[$*] created $t"
}
in=$docs/scd1-users/input.csv
common=(--keys userId --sequence-by sequenceNum)
usage "--columns and --except exclude each other" "${common[@]}" --columns userId,name --except city "$in"
usage "--track-history and --track-history-except exclude each other" "${common[@]}" --scd 2 \
  --track-history name --track-history-except city "$in"
usage "--ignore-null-updates and --ignore-null-updates-on exclude each other" "${common[@]}" \
  --ignore-null-updates --ignore-null-updates-on name "$in"
usage "--ignore-null-updates-on and --ignore-null-updates-except exclude each other" "${common[@]}" \
  --ignore-null-updates-on name --ignore-null-updates-except city "$in"
usage "KEYS names column 'nosuch'" --keys nosuch --sequence-by sequenceNum "$in"
usage "TRUNCATE WHEN is not allowed with SCD TYPE 2" "${common[@]}" --scd 2 --truncate-when "operation = 'TRUNCATE'" "$in"
usage "TRACK HISTORY applies to SCD TYPE 2 only" "${common[@]}" --track-history name "$in"
usage "--scd must be 1 or 2" "${common[@]}" --scd 3 "$in"
usage "--batch-size must be positive" "${common[@]}" --batch-size 0 "$in"
usage "--property nokey: write it as key=value" "${common[@]}" --property nokey "$in"
usage "--schema" "${common[@]}" --schema "userId NOSUCHTYPE" "$in"

# A condition's syntax error shows the line, the column and a caret under the spot.
if err=$("$bin" apply --target "$work/usage" "${common[@]}" --delete-when "operation = AND x" "$in" 2>&1); then
  fail "bad condition accepted"
else
  rc=$?
fi
expect_eq "$rc" 2 "condition syntax error: "
grep -q -- "--delete-when: line 1, column 13" <<<"$err" || fail "no line/column: $err"
grep -q "operation = AND x" <<<"$err" || fail "no condition text: $err"
grep -qE '^ *\^$' <<<"$err" || fail "no caret: $err"
caret=$(grep -E '^ *\^$' <<<"$err")
text=$(grep "operation = AND x" <<<"$err")
expect_eq "${caret%^}" "$(sed 's/AND x$//' <<<"$text" | sed 's/[^ ]/ /g')" "caret under AND: "

# Engine errors exit 1 and name the file.
if err=$("$bin" apply --target "$work/missing" "${common[@]}" "$work/nosuch.csv" 2>&1); then fail "missing file"; else rc=$?; fi
expect_eq "$rc" 1 "missing file: "
grep -q "$work/nosuch.csv" <<<"$err" || fail "missing file not named: $err"
if err=$("$bin" apply --target "$work/bad-all" --keys userId,name --sequence-by sequenceNum "$work/bad.csv" 2>&1); then
  fail "other keys accepted"
else
  rc=$?
fi
expect_eq "$rc" 1 "other keys: "
grep -q "was created with KEYS" <<<"$err" || fail "other keys: $err"
# Folders and globs are streams: each run continues where the last stopped; appended lines and
# new files are read alone; hidden names (_SUCCESS) are skipped; a file arriving out of name
# order is an error naming both files.
s=$work/stream
mkdir -p "$s"
printf 'id,name,seq\n1,ann,1\n2,bob,1\n' >"$s/0001.csv"
printf '{"id":3,"name":"cy","seq":1}\n' >"$s/0002.jsonl"
: >"$s/_SUCCESS"
t=$work/stream-target
stream=(--target "$t" --keys id --sequence-by seq --except seq)
out=$("$bin" apply "${stream[@]}" "$s")
expect_eq "$(count "$out" "rows read")" 3 "stream first run: "
expect_eq "$(count "$out" "files read")" 2 "stream first run files: "
! grep -q "^resumed from" <<<"$out" || fail "a first run resumed: $out"
out=$("$bin" apply "${stream[@]}" "$s")
expect_eq "$(count "$out" "rows read")" 0 "stream rerun: "
expect_eq "$(sed -n 's/^versions written  *//p' <<<"$out")" none "stream rerun versions: "
grep -q "^resumed from  *$s/0002.jsonl@[0-9]" <<<"$out" || fail "no resume line: $out"
printf '{"id":1,"name":"anna","seq":2}\n' >>"$s/0002.jsonl"
printf 'id,name,seq\n4,di,1\n' >"$s/0003.csv"
out=$("$bin" apply "${stream[@]}" --batch-size 1 "$s")
conserved "$out"
expect_eq "$(count "$out" "rows read")" 2 "stream appended line + new file: "
expect_eq "$(count "$out" "rows discarded")" 0 "stream appended line + new file discarded: "
expect_eq "$(rows "$t")" $'id,name\n1,anna\n2,bob\n3,cy\n4,di' "stream table: "
# A glob over the same folder is another source: an error naming both, saying what to do.
if err=$("$bin" apply "${stream[@]}" "$s/0*.csv" 2>&1); then fail "another source accepted: $err"; else rc=$?; fi
expect_eq "$rc" 2 "another source: "
grep -q -- "--reset-position" <<<"$err" || fail "another source: $err"
# A file arriving late, named before the files read, is read once (as Auto Loader does).
sleep 0.1
printf 'id,name,seq\n5,ed,1\n' >"$s/0000.csv"
out=$("$bin" apply "${stream[@]}" "$s")
expect_eq "$(count "$out" "rows applied")" 1 "late file: "
out=$("$bin" apply "${stream[@]}" "$s")
expect_eq "$(count "$out" "rows read")" 0 "late file read again: "
expect_eq "$(rows "$t")" $'id,name\n1,anna\n2,bob\n3,cy\n4,di\n5,ed' "late file table: "
# Named alone, a file is read whole (its row is a replay now).
out=$("$bin" apply "${stream[@]}" "$s/0000.csv")
expect_eq "$(count "$out" "rows discarded")" 1 "late file named alone: "

echo "cli_apply: ok"
