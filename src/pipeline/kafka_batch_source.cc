// KafkaBatchSource: read_kafka as a BatchSource: KafkaReader's batches with their positions as
// JSON, and each durable position passed on to the consumer group for lag tools.
#include "pipeline/batch_source.h"

namespace cdclake::pipeline {

namespace {

using sources::kafka::KafkaBatch;
using sources::kafka::KafkaPosition;
using sources::kafka::KafkaReader;

class KafkaBatchSource : public BatchSource {
 public:
  explicit KafkaBatchSource(std::unique_ptr<KafkaReader> reader) : reader_(std::move(reader)) {}

  std::string StartText() const override { return reader_->StartText(); }

  Result<std::optional<InputBatch>> Next() override {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<KafkaBatch> batch, reader_->Next());
    if (!batch) return std::optional<InputBatch>();
    InputBatch out;
    out.rows = std::move(batch->rows);
    out.end = batch->end.ToJson();
    out.end_text = "kafka " + batch->end.ToString();
    out.written_ms = batch->written_ms;
    return std::optional<InputBatch>(std::move(out));
  }

  std::vector<std::string> Notices() const override { return reader_->Notices(); }
  std::vector<sources::SourceCount> Counts() const override { return reader_->Counts(); }
  std::optional<std::string> Lag() override { return reader_->Lag(); }

  void Committed(const json::Json& end) override {
    auto position = KafkaPosition::FromJson(end);
    if (position.ok() && *position) reader_->Committed(**position);
  }

 private:
  std::unique_ptr<KafkaReader> reader_;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenKafkaSource(const SourcePlan& source,
                                                     const json::Json& position, int64_t batch_rows,
                                                     const std::string& group_id) {
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<KafkaPosition> resume, KafkaPosition::FromJson(position));
  if (!resume && !position.is_null() && !(position.is_object() && position.empty())) {
    return Status::InvalidArgument(
        "the flow's recorded position " + json::Dump(position) +
        " is not a Kafka position: the flow read another source before; refresh the table in "
        "full (--full-refresh) or reset the flow's position (--reset-position)");
  }
  sources::kafka::KafkaSpec spec = source.kafka;
  spec.batch_rows = batch_rows;
  if (spec.kafka_options.count("group.id") == 0) spec.group_id = group_id;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<KafkaReader> reader, KafkaReader::Open(spec, resume));
  return std::unique_ptr<BatchSource>(new KafkaBatchSource(std::move(reader)));
}

}  // namespace cdclake::pipeline
