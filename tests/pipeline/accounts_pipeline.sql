-- The pipeline the exactly-once test runs: Debezium files into bronze, then SCD1 and SCD2.
CREATE OR REFRESH STREAMING TABLE bank.bronze_accounts
AS SELECT * FROM STREAM(read_files('${input}/*.json', format => 'debezium'));

CREATE OR REFRESH STREAMING TABLE bank.accounts;
CREATE FLOW accounts_current AS AUTO CDC INTO bank.accounts
FROM STREAM(bank.bronze_accounts)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE bank.accounts_history;
CREATE FLOW accounts_history AS AUTO CDC INTO bank.accounts_history
FROM STREAM(bank.bronze_accounts)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 2;
