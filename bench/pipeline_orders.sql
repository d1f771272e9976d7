-- The pipeline bench/pipeline_bench.sh runs: Debezium files of a 12-column `orders` table (from
-- bench/pipeline_make_events.awk) into bronze, then into a current-state (SCD type 1) and a
-- history (SCD type 2) table. Variables: input (the folder of *.json files).
CREATE OR REFRESH STREAMING TABLE shop.bronze_orders
COMMENT 'Debezium events of public.orders, as received'
AS SELECT * FROM STREAM(read_files('${input}/*.json', format => 'debezium',
  schema => 'id INT, account_id BIGINT, quantity INT, amount DECIMAL(12,2), customer STRING,
             email STRING, status STRING, created_at TIMESTAMP_NTZ, ship_date DATE,
             paid BOOLEAN, revision BIGINT, note STRING'));

CREATE OR REFRESH STREAMING TABLE shop.orders;
CREATE FLOW orders_current AS AUTO CDC INTO shop.orders
FROM STREAM(shop.bronze_orders)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE shop.orders_history;
CREATE FLOW orders_history AS AUTO CDC INTO shop.orders_history
FROM STREAM(shop.bronze_orders)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 2;
