#!/usr/bin/env bash
# End to end: `cdclake changes` prints a table's change data feed — cdc files with update pre-
# and post-images, in-commit timestamps — in each format, and fails clearly on a bad range.
# Usage: cli_changes_test.sh CDCLAKE_BIN SHARED_DIR
set -euo pipefail
bin=$1
tables=$2/testdata/delta
fail() { echo "FAIL: $*"; exit 1; }
expect_in() { grep -qF -- "$2" <<<"$1" || fail "expected [$2] in [$1]"; }

csv=$("$bin" changes "$tables/rs-cdc_ict_table" --from 1 --to 3 --format csv)
expected='name,birthyear,age,_change_type,_commit_version,_commit_timestamp
Steve,1986,40,insert,1,2023-05-12 06:50:06.883000Z
Kate,1995,36,insert,1,2023-05-12 06:50:06.883000Z
Dave,1995,22,insert,1,2023-05-12 06:50:06.883000Z
Dan,1995,14,insert,1,2023-05-12 06:50:06.883000Z
Dave,1995,22,delete,2,2026-07-12 16:36:52.175000Z
Dan,1995,14,delete,2,2026-07-12 16:36:52.175000Z
Steve,1986,40,update_preimage,3,2026-07-12 16:36:53.881000Z
Steve,1986,41,update_postimage,3,2026-07-12 16:36:53.881000Z
Kate,1995,36,update_preimage,3,2026-07-12 16:36:53.881000Z
Kate,1995,37,update_postimage,3,2026-07-12 16:36:53.881000Z'
[ "$csv" = "$expected" ] || fail "rs-cdc_ict_table changes:
$csv"

# --to defaults to the latest version.
jsonl=$("$bin" changes "$tables/rs-cdf-table" --from 3 --format jsonl)
[ "$(wc -l <<<"$jsonl")" -eq 1 ] || fail "one change in version 3: $jsonl"
expect_in "$jsonl" '{"id":7,"name":"Dennis","birthday":"2023-12-29","_change_type":"delete","_commit_version":3,'
[ "$("$bin" changes "$tables/rs-cdf-table" --from 0 --format csv | wc -l)" -eq 24 ] || fail "23 changes"
"$bin" changes "$tables/rs-cdf-table" --from 1 --to 1 | grep -q "6 rows" || fail "table footer"

if err=$("$bin" changes "$tables/rs-cdf-table" --from 9 2>&1); then fail "a version past the end"; fi
expect_in "$err" "version 9 does not exist (latest is 3)"
if err=$("$bin" changes "$tables/rs-cdf-table" --from 2 --to 1 2>&1); then fail "--to before --from"; fi
expect_in "$err" "invalid argument"
if "$bin" changes "$tables/rs-cdf-table" >/dev/null 2>&1; then fail "--from is required"; fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if err=$("$bin" changes "$dir" --from 0 2>&1); then fail "not a table"; fi
expect_in "$err" "not a Delta table"
echo "cli_changes: ok"
