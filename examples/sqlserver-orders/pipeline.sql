-- SQL Server CDC: rows exported from the change table cdc.dbo_order_lines_CT (CSV, with the
-- __$start_lsn, __$seqval, __$operation and __$update_mask columns) applied as current order
-- lines (SCD type 1, with deletes) and as their history (SCD type 2).
-- Run it with: cdclake run examples/sqlserver-orders/pipeline.sql --var data=examples/sqlserver-orders/data

CREATE OR REFRESH STREAMING TABLE sales.bronze_order_lines
AS SELECT * FROM STREAM(read_files('${data}/dbo_order_lines_CT-*.csv', format => 'sqlserver'));

CREATE OR REFRESH STREAMING TABLE sales.order_lines;

CREATE FLOW order_lines_current AS AUTO CDC INTO sales.order_lines
FROM STREAM(sales.bronze_order_lines)
KEYS (order_id, line_no)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE sales.order_lines_history;

CREATE FLOW order_lines_history AS AUTO CDC INTO sales.order_lines_history
FROM STREAM(sales.bronze_order_lines)
KEYS (order_id, line_no)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 2
TRACK HISTORY ON * EXCEPT (unit_price);
