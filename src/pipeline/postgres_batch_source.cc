// PostgresBatchSource: read_postgres as a BatchSource: PgTableReader's batches with their
// positions as JSON, and each commit confirmed to the slot once it is durable.
#include "base/crash_point.h"
#include "pipeline/batch_source.h"

namespace cdclake::pipeline {

namespace {

using sources::postgres::PgBatch;
using sources::postgres::PgPosition;
using sources::postgres::PgTableReader;

class PostgresBatchSource : public BatchSource {
 public:
  explicit PostgresBatchSource(std::unique_ptr<PgTableReader> reader)
      : reader_(std::move(reader)) {}

  std::string StartText() const override { return reader_->StartText(); }

  Result<std::optional<InputBatch>> Next() override {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<PgBatch> batch, reader_->Next());
    if (!batch) return std::optional<InputBatch>();
    InputBatch out;
    out.rows = std::move(batch->rows);
    out.end = batch->end.ToJson();
    out.end_text = batch->end.ToString();
    out.written_ms = batch->written_ms;
    // Delta's transaction identifier for the source, at positions that only grow: the copy's
    // batches all share its consistent point, so only its last one has it.
    if (batch->end.snapshot_rows < 0) {
      out.source_txn = {batch->end.AppId(), static_cast<int64_t>(batch->end.lsn)};
    }
    return std::optional<InputBatch>(std::move(out));
  }

  std::vector<std::string> Notices() const override { return reader_->notices(); }

  std::optional<std::string> Lag() override {
    Result<std::string> lag = reader_->Lag();
    return lag.ok() ? *lag : "unknown (" + lag.status().message() + ")";
  }

  void Committed(const json::Json& end) override {
    CrashPoint("pg-committed-unconfirmed");  // durable in the table, the slot not told yet
    auto position = PgPosition::FromJson(end);
    if (position.ok() && *position) reader_->Confirm((*position)->lsn);
  }

 private:
  std::unique_ptr<PgTableReader> reader_;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenPostgresSource(const SourcePlan& source,
                                                        const json::Json& position,
                                                        int64_t batch_rows,
                                                        sources::postgres::SharedSlot* shared) {
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<PgPosition> resume, PgPosition::FromJson(position));
  if (!resume && !position.is_null() && !(position.is_object() && position.empty())) {
    return Status::InvalidArgument(
        "the flow's recorded position " + json::Dump(position) +
        " is not a PostgreSQL position: the flow read another source before; refresh the table "
        "in full (--full-refresh) or reset the flow's position (--reset-position)");
  }
  sources::postgres::PgTableSpec spec = source.postgres;
  spec.batch_rows = batch_rows;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgTableReader> reader,
                           PgTableReader::Open(spec, resume, shared));
  return std::unique_ptr<BatchSource>(new PostgresBatchSource(std::move(reader)));
}

}  // namespace cdclake::pipeline
