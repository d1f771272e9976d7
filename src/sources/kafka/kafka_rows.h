// KafkaRows: Kafka messages as rows: read_kafka's own columns (key, value, topic, partition,
// offset, timestamp, timestampType, headers), or with format => 'debezium' the values decoded
// as the Debezium file reader decodes them, plus where each message was.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "sources/kafka/kafka_record.h"

namespace cdclake::sources::kafka {

/// read_kafka's columns, as Databricks names and types them: key BINARY, value BINARY, topic
/// STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, timestampType INT, headers
/// ARRAY<STRUCT<key STRING, value BINARY>>.
data::Schema RawSchema();

/// Every record as one row of RawSchema(); positions name "topic/partition" and the offset.
change::ChangeBatch RawRows(const std::vector<KafkaRecord>& records);

/// Columns added after the Debezium reader's: _kafka_topic STRING, _kafka_partition INT,
/// _kafka_offset BIGINT, _kafka_timestamp TIMESTAMP.
const std::vector<std::string>& KafkaColumns();

/// Rows of the records [0, end).
struct DebeziumPiece {
  change::ChangeBatch rows;
  size_t end = 0;
};

/// The records' values decoded as Debezium JSON (with or without the schema part; `schema`
/// types the columns of values without one), in order, plus KafkaColumns(). A value that does
/// not decode is a rejected record naming topic, partition and offset; tombstones (null or empty
/// values) are counted into `counts` ("Kafka tombstones skipped") with the reader's other
/// counts, by label. Several pieces when a column appears mid-way (each batch has one schema);
/// the last piece covers every record.
Result<std::vector<DebeziumPiece>> DebeziumRows(const std::vector<KafkaRecord>& records,
                                                const std::optional<data::Schema>& schema,
                                                std::map<std::string, int64_t>* counts);

/// "topic/partition": the `file` of the records' positions.
std::string PartitionName(const KafkaRecord& record);

}  // namespace cdclake::sources::kafka
