-- Quick start: a shop's PostgreSQL tables captured by Debezium (JSON, one event per line) land
-- in bronze as they are, then become current-state (SCD type 1) and history (SCD type 2)
-- tables. Run it with: cdclake run examples/quickstart/pipeline.sql --var data=examples/quickstart/data

-- Bronze: every decoded event, appended, with where it came from (_source_file, _source_offset)
-- and when it arrived (_ingested_at).
CREATE OR REFRESH STREAMING TABLE shop.bronze_customers
COMMENT 'Debezium events of public.customers, as received'
AS SELECT * FROM STREAM(read_files('${data}/customers/*.json', format => 'debezium'));

CREATE OR REFRESH STREAMING TABLE shop.bronze_orders
COMMENT 'Debezium events of public.orders, as received'
AS SELECT * FROM STREAM(read_files('${data}/orders/*.json', format => 'debezium',
                                   schema => 'amount DECIMAL(10,2)'));

-- Silver: the customers as they are now. Late and duplicate events are discarded by the
-- sequence (the connector's commit LSN and LSN), deletes stay deleted.
CREATE OR REFRESH STREAMING TABLE shop.customers;

CREATE FLOW customers_current AS AUTO CDC INTO shop.customers
FROM STREAM(shop.bronze_customers)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;

-- Silver: every version of every customer, with __START_AT and __END_AT.
CREATE OR REFRESH STREAMING TABLE shop.customers_history;

CREATE FLOW customers_history AS AUTO CDC INTO shop.customers_history
FROM STREAM(shop.bronze_customers)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 2;

CREATE OR REFRESH STREAMING TABLE shop.orders;

CREATE FLOW orders_current AS AUTO CDC INTO shop.orders
FROM STREAM(shop.bronze_orders)
KEYS (order_id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;
