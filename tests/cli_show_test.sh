#!/usr/bin/env bash
# End to end: `cdclake sample` writes every type; `cdclake show --format csv` prints it as the
# CSV contract says; `cdclake schema` names every type; bad input fails with the file's name.
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" sample "$dir/s.parquet"
csv=$("$bin" show "$dir/s.parquet" --format csv)
header=$(head -1 <<<"$csv")
[ "$header" = "id,active,tiny,small,qty,ratio,score,price,big,name,blob,born,updated_at,local_time,address,tags,attrs" ] ||
  fail "header: $header"
row1=$(sed -n 2p <<<"$csv")
row2=$(sed -n 3p <<<"$csv")
expect_in() { grep -qF -- "$2" <<<"$1" || fail "expected [$2] in [$1]"; }
expect_in "$row1" '1,true,-8,300,42,1.5,0.1,12.30,-123.456789,"Ada, ""the first""",00ff,2024-01-01,2023-11-14 22:13:20.123456Z,2023-11-14 22:13:20.000000,'
expect_in "$row1" '"{""city"":""Zürich"",""zip"":8001}","[""a"",""""]","{""k"":7}"'
# NULL is an empty field; an empty string is "".
[ "$row2" = '2,false,,,,,,,,"",,,,,,[],' ] || fail "row 2: $row2"
[ "$(wc -l <<<"$csv")" -eq 4 ] || fail "expected 3 rows"

"$bin" show "$dir/s.parquet" --format csv --limit 1 | wc -l | grep -qx 2 || fail "--limit 1"
jsonl=$("$bin" show "$dir/s.parquet" --format jsonl --limit 1)
expect_in "$jsonl" '"price":12.30'
expect_in "$jsonl" '"tags":["a",""]'
"$bin" show "$dir/s.parquet" | grep -q "3 rows" || fail "table footer"

schema=$("$bin" schema "$dir/s.parquet")
expect_in "$schema" "id bigint not null"
expect_in "$schema" "price decimal(10,2)"
expect_in "$schema" "attrs map<string,bigint>"

printf 'not parquet at all' > "$dir/bad.parquet"
if err=$("$bin" show "$dir/bad.parquet" 2>&1); then fail "bad file accepted"; fi
expect_in "$err" "$dir/bad.parquet"
expect_in "$err" "corrupt"
echo "cli_show: ok"
