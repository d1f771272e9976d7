#!/usr/bin/env bash
# End to end: `cdclake apply --format debezium|sqlserver`. The PostgreSQL Flink changelog fixture
# in order and shuffled with duplicates gives one table (SCD1 and SCD2); a SQL Server CDC export
# out of order gives the expected table; the format's defaults can be overridden; bad records go
# to <target>_quarantine; the readers' counts are in the summary.
set -euo pipefail
bin=$1
fixture=$2/testdata/sources/debezium/postgresql/flink-products-changelog.jsonl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-}expected [$2], got [$1]"; }
[ -f "$fixture" ] || fail "$fixture missing"

# A number from apply's summary: the first field after the label.
count() { sed -n "s/^$2  *\([0-9][0-9]*\).*/\1/p" <<<"$1"; }
# read = applied + discarded + quarantined.
conserved() {
  local r a d q
  r=$(count "$1" "rows read"); a=$(count "$1" "rows applied")
  d=$(count "$1" "rows discarded"); q=$(count "$1" "rows quarantined")
  [ -n "$r" ] && [ -n "$a" ] && [ -n "$d" ] && [ -n "$q" ] || fail "summary lacks counts: $1"
  [ "$r" -eq $((a + d + q)) ] || fail "read $r != applied $a + discarded $d + quarantined $q"
}
scd1_rows() { "$bin" show "$1" --format csv --order-by id; }
scd2_rows() { "$bin" show "$1" --format csv --order-by id,__START_AT; }

# --- Debezium: the Flink PostgreSQL changelog (9 snapshot reads, creates, updates with full
# before images, a delete of 111) ---
want_scd1='id,name,description,weight
101,scooter,Small 2-wheel scooter,3.14
102,car battery,12V car battery,8.1
103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8
104,hammer,12oz carpenter'"'"'s hammer,0.75
105,hammer,14oz carpenter'"'"'s hammer,0.875
106,hammer,18oz carpenter hammer,1
107,rocks,box of assorted rocks,5.1
108,jacket,water resistent black wind breaker,0.1
109,spare tire,24 inch spare tire,22.2
110,jacket,new water resistent white wind breaker,0.5'
# `_seq` is STRUCT(commit_lsn, lsn); this connector version sends no source.sequence, so both
# members are the event's lsn. A delete closes the key's last version.
lsn_seq() { printf '"{""commit_lsn"":%s,""lsn"":%s}"' "$1" "$1"; }
snap=$(lsn_seq 34078720)
want_scd2="id,name,description,weight,__START_AT,__END_AT
101,scooter,Small 2-wheel scooter,3.14,$snap,
102,car battery,12V car battery,8.1,$snap,
103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8,$snap,
104,hammer,12oz carpenter's hammer,0.75,$snap,
105,hammer,14oz carpenter's hammer,0.875,$snap,
106,hammer,16oz carpenter's hammer,1,$snap,$(lsn_seq 34131104)
106,hammer,18oz carpenter hammer,1,$(lsn_seq 34131104),
107,rocks,box of assorted rocks,5.3,$snap,$(lsn_seq 34132200)
107,rocks,box of assorted rocks,5.1,$(lsn_seq 34132200),
108,jacket,water resistent black wind breaker,0.1,$snap,
109,spare tire,24 inch spare tire,22.2,$snap,
110,jacket,water resistent white wind breaker,0.2,$(lsn_seq 34132560),$(lsn_seq 34133344)
110,jacket,new water resistent white wind breaker,0.5,$(lsn_seq 34133344),
111,scooter,Big 2-wheel scooter ,5.18,$(lsn_seq 34133072),$(lsn_seq 34133584)
111,scooter,Big 2-wheel scooter ,5.17,$(lsn_seq 34133584),$(lsn_seq 34133800)"

# In order, defaults only: --sequence-by _seq, --delete-when "_op = 'd'", the `_` columns out.
out=$("$bin" apply --target "$work/dbz1" --keys id --format debezium "$fixture")
conserved "$out"
expect_eq "$(count "$out" "rows read")" 16 "in order, rows read: "
expect_eq "$(count "$out" "rows applied")" 16 "in order, rows applied: "
expect_eq "$(count "$out" "Kafka tombstones skipped")" 0 "in order, tombstones: "
expect_eq "$(count "$out" "op m messages ignored")" 0 "in order, op m: "
expect_eq "$(scd1_rows "$work/dbz1")" "$want_scd1" "debezium SCD1 in order: "
"$bin" apply --target "$work/dbz2" --keys id --format debezium --scd 2 "$fixture" >/dev/null
expect_eq "$(scd2_rows "$work/dbz2")" "$want_scd2" "debezium SCD2 in order: "
"$bin" schema "$work/dbz2" | grep -q "^__START_AT struct<commit_lsn" ||
  fail "__START_AT is not _seq's struct: $("$bin" schema "$work/dbz2")"

# A replay writes nothing: the file is left out (applied whole, the same bytes); read again with
# --reset-position, every event is discarded.
out=$("$bin" apply --target "$work/dbz1" --keys id --format debezium "$fixture")
expect_eq "$(sed -n 's/^versions written  *//p' <<<"$out")" none "replay: "
expect_eq "$(count "$out" "rows read")" 0 "replay read: "
out=$("$bin" apply --target "$work/dbz1" --keys id --format debezium --reset-position "$fixture")
expect_eq "$(sed -n 's/^versions written  *//p' <<<"$out")" none "replay read again: "
expect_eq "$(count "$out" "rows discarded")" 16 "replay discarded: "

# Shuffled (a fixed random source) with 12 lines twice: the same tables, SCD1 and SCD2, in one
# batch and in batches of 3 (late events across batches).
{ yes cdclake || true; } | head -c 65536 >"$work/random"
{ cat "$fixture"; head -n 12 "$fixture"; } | shuf --random-source="$work/random" >"$work/shuffled.jsonl"
expect_eq "$(wc -l <"$work/shuffled.jsonl" | tr -d ' ')" 28 "shuffled lines: "
! head -n 16 "$work/shuffled.jsonl" | cmp -s - "$fixture" || fail "shuf left the lines in order"
for scd in 1 2; do
  for size in all 3; do
    batch=()
    [ "$size" = all ] || batch=(--batch-size "$size")
    t=$work/shuffled-$scd-$size
    out=$("$bin" apply --target "$t" --keys id --format debezium --scd "$scd" "${batch[@]}" \
      "$work/shuffled.jsonl")
    conserved "$out"
    expect_eq "$(count "$out" "rows read")" 28 "shuffled SCD$scd/$size read: "
    expect_eq "$(count "$out" "rows quarantined")" 0 "shuffled SCD$scd/$size quarantined: "
    # At least the 12 duplicates are discarded.
    [ "$(count "$out" "rows discarded")" -ge 12 ] || fail "shuffled SCD$scd/$size: $out"
    if [ "$scd" = 1 ]; then
      expect_eq "$(scd1_rows "$t")" "$want_scd1" "shuffled SCD1, batches of $size: "
    else
      expect_eq "$(scd2_rows "$t")" "$want_scd2" "shuffled SCD2, batches of $size: "
    fi
  done
done

# Each default gives way to its option. --delete-when that matches nothing: 111's delete is
# an upsert of its before image.
"$bin" apply --target "$work/nodelete" --keys id --format debezium --delete-when "_op = 'x'" \
  "$fixture" >/dev/null
expect_eq "$(scd1_rows "$work/nodelete" | tail -n 1)" "111,scooter,Big 2-wheel scooter ,5.17" "--delete-when: "
# --columns keeps a listed `_` column; --except keeps the `_` columns out too.
"$bin" apply --target "$work/cols" --keys id --format debezium --columns id,name,_source_table \
  "$fixture" >/dev/null
expect_eq "$("$bin" show "$work/cols" --format csv --order-by id | sed -n '1p;2p')" \
  $'id,name,_source_table\n101,scooter,postgres.inventory.products' "--columns: "
"$bin" apply --target "$work/except" --keys id --format debezium --except description "$fixture" >/dev/null
expect_eq "$("$bin" show "$work/except" --format csv --order-by id | sed -n '1p;2p')" \
  $'id,name,weight\n101,scooter,3.14' "--except: "
# Another sequence: the source's timestamp also orders each key's events.
"$bin" apply --target "$work/ts" --keys id --format debezium --sequence-by _source_ts_ms \
  "$work/shuffled.jsonl" >/dev/null
expect_eq "$(scd1_rows "$work/ts")" "$want_scd1" "--sequence-by _source_ts_ms: "
"$bin" schema "$work/ts" | grep -q "_source_ts_ms" && fail "_source_ts_ms in the target"

# A column that appears mid-stream, a tombstone, an op m message and a truncated line (to the
# quarantine), in batches of 2.
ev() {
  printf '{"before":%s,"after":%s,"source":{"connector":"postgresql","db":"shop","schema":"public","table":"t","ts_ms":%s,"lsn":%s},"op":"%s"}\n' \
    "$1" "$2" "$3" "$3" "$4"
}
{
  ev null '{"id":1,"v":"a"}' 10 c
  echo null
  ev null '{"id":2,"v":"b"}' 11 c
  echo '{"op":"m","source":{"connector":"postgresql","lsn":12},"message":{"prefix":"p","content":"AA=="}}'
  ev '{"id":1,"v":"a"}' '{"id":1,"v":"a2","color":"red"}' 13 u
  echo '{"before":null,"after":{"id":'
  ev '{"id":2,"v":"b"}' null 14 d
  ev null '{"id":3,"v":"c","color":"blue"}' 15 c
} >"$work/midstream.json"
t=$work/midstream
out=$("$bin" apply --target "$t" --keys id --format debezium --batch-size 2 "$work/midstream.json")
conserved "$out"
expect_eq "$(count "$out" "rows read")" 6 "midstream read: "
expect_eq "$(count "$out" "Kafka tombstones skipped")" 1 "midstream tombstones: "
expect_eq "$(count "$out" "op m messages ignored")" 1 "midstream op m: "
expect_eq "$(count "$out" "rows quarantined")" 1 "midstream quarantined: "
expect_eq "$(scd1_rows "$t")" $'id,v,color\n1,a2,red\n3,c,blue' "midstream table: "
q=$("$bin" show "${t}_quarantine" --columns source_line,raw --format csv)
expect_eq "$(tail -n +2 <<<"$q")" '6,"{""before"":null,""after"":{""id"":"' "midstream quarantine: "

# The truncate default (SCD1): op t empties the table; later events apply after it.
{
  ev null '{"id":1,"v":"a"}' 10 c
  ev null '{"id":2,"v":"b"}' 11 c
  ev null null 12 t
  ev null '{"id":3,"v":"c"}' 13 c
} >"$work/truncate.json"
"$bin" apply --target "$work/truncate" --keys id --format debezium "$work/truncate.json" >/dev/null
expect_eq "$(scd1_rows "$work/truncate")" $'id,v\n3,c' "debezium truncate: "

# --- SQL Server: a CDC change-table export (CSV), rows out of order. Key 1: insert, then an
# update whose mask (0x04) names qty only, so name keeps 'a' although the after image says
# 'zzz'. Key 2: insert, delete. Key 3: insert, update of name. One row with operation 7. ---
cat >"$work/dbo_items_CT.csv" <<'EOF'
__$start_lsn,__$end_lsn,__$seqval,__$operation,__$update_mask,id,name,qty,__$command_id
0x00000030000001000003,,0x00000030000001000002,3,0x02,3,c,30,1
0x00000030000001000003,,0x00000030000001000002,4,0x02,3,cc,30,1
0x00000020000000500003,,0x00000020000000500002,1,0x07,2,b,20,1
0x00000010000000200003,,0x00000010000000200002,2,0x07,1,a,10,1
0x00000018000000300003,,0x00000018000000300002,3,0x04,1,a,10,1
0x00000018000000300003,,0x00000018000000300002,4,0x04,1,zzz,15,1
0x00000010000000200003,,0x00000010000000200004,2,0x07,2,b,20,2
0x00000028000000100003,,0x00000028000000100002,2,0x07,3,c,30,1
0x00000028000000200003,,0x00000028000000200002,7,0x07,4,bad,40,1
EOF
for size in all 1 3; do
  batch=()
  [ "$size" = all ] || batch=(--batch-size "$size")
  t=$work/mssql-$size
  out=$("$bin" apply --target "$t" --keys id --format sqlserver "${batch[@]}" "$work/dbo_items_CT.csv")
  conserved "$out"
  expect_eq "$(count "$out" "rows read")" 7 "sqlserver/$size read: "
  expect_eq "$(count "$out" "before-images skipped")" 2 "sqlserver/$size before-images: "
  expect_eq "$(count "$out" "rows quarantined")" 1 "sqlserver/$size quarantined: "
  grep -q "Kafka tombstones" <<<"$out" && fail "sqlserver summary has Debezium counts: $out"
  expect_eq "$(scd1_rows "$t")" $'id,name,qty\n1,a,15\n3,cc,30' "sqlserver/$size table: "
  q=$("$bin" show "${t}_quarantine" --columns source_line,reason --format csv)
  expect_eq "$(tail -n +2 <<<"$q" | cut -d, -f1)" 10 "sqlserver/$size quarantined line: "
  grep -q "__\$operation '7'" <<<"$q" || fail "sqlserver/$size quarantine reason: $q"
done
# SCD2 over the same export: key 1 and key 3 have two versions, key 2 is closed by its delete.
"$bin" apply --target "$work/mssql-scd2" --keys id --format sqlserver --scd 2 "$work/dbo_items_CT.csv" >/dev/null
expect_eq "$("$bin" show "$work/mssql-scd2" --format csv --columns id,name,qty --order-by id,name,qty)" \
  $'id,name,qty\n1,a,10\n1,a,15\n2,b,20\n3,c,30\n3,cc,30' "sqlserver SCD2: "
# The open versions (no __END_AT): keys 1 and 3.
open=$("$bin" show "$work/mssql-scd2" --format csv --columns id,__END_AT --order-by id |
  tail -n +2 | grep ',$' | cut -d, -f1 | tr '\n' ' ')
expect_eq "$open" "1 3 " "sqlserver SCD2 open versions: "
# An export named .jsonl is read as JSON Lines.
printf '%s\n' \
  '{"__$start_lsn":"0x00000010000000200003","__$seqval":"0x00000010000000200002","__$operation":2,"id":1,"name":"a","qty":1}' \
  '{"__$start_lsn":"0x00000010000000300003","__$seqval":"0x00000010000000300002","__$operation":2,"id":2,"name":"b","qty":2}' \
  '{"__$start_lsn":"0x00000010000000400003","__$seqval":"0x00000010000000400002","__$operation":1,"id":1,"name":"a","qty":1}' \
  >"$work/export.jsonl"
"$bin" apply --target "$work/mssql-jsonl" --keys id --format sqlserver "$work/export.jsonl" >/dev/null
expect_eq "$(scd1_rows "$work/mssql-jsonl")" $'id,name,qty\n2,b,2' "sqlserver JSON Lines: "

# --- Usage errors exit 2 and create nothing ---
usage() {
  local want=$1 t=$work/usage
  shift
  if err=$("$bin" apply --target "$t" "$@" 2>&1); then fail "accepted: $*"; else rc=$?; fi
  expect_eq "$rc" 2 "exit code of [$*]: "
  grep -q -- "$want" <<<"$err" || fail "[$*]: expected '$want' in: $err"
  [ ! -e "$t" ] || fail "[$*] created $t"
}
usage "--format must be csv, jsonl, debezium, sqlserver or parquet, got 'xml'" --keys id --format xml "$fixture"
printf 'id,v\n1,a\n' >"$work/plain.csv"
usage "--sequence-by is required" --keys id "$work/plain.csv"
usage "KEYS names column 'nosuch'" --keys nosuch --format debezium "$fixture"
usage "$fixture" --keys nosuch --format debezium "$fixture"
usage "TRUNCATE WHEN is not allowed with SCD TYPE 2" --keys id --format debezium --scd 2 \
  --truncate-when "_op = 't'" "$fixture"
# A file that is not a SQL Server export is an engine error (exit 1) naming it.
if err=$("$bin" apply --target "$work/notcdc" --keys id --format sqlserver "$work/plain.csv" 2>&1); then
  fail "plain CSV read as a SQL Server export"
else
  rc=$?
fi
expect_eq "$rc" 1 "not an export: "
grep -q "$work/plain.csv: no __\$operation column" <<<"$err" || fail "not an export: $err"
echo "cli_apply_sources: ok"
