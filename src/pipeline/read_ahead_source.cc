// ReadAheadSource: a BatchSource whose next batch is read (files decoded, commits read) on a
// thread of its own while the flow applies or appends the current one.
#include "base/read_ahead.h"
#include "pipeline/batch_source.h"

namespace cdclake::pipeline {

namespace {

class ReadAheadSource : public BatchSource {
 public:
  explicit ReadAheadSource(std::unique_ptr<BatchSource> inner)
      : inner_(std::move(inner)), ahead_([this] { return inner_->Next(); }) {}

  std::string StartText() const override {
    return ahead_.Paused([this] { return inner_->StartText(); });
  }
  Result<std::optional<InputBatch>> Next() override { return ahead_.Next(); }
  std::optional<change::SourcePosition> QuarantinedBefore() const override {
    return ahead_.Paused([this] { return inner_->QuarantinedBefore(); });
  }
  std::vector<std::string> Notices() const override {
    return ahead_.Paused([this] { return inner_->Notices(); });
  }
  std::vector<sources::SourceCount> Counts() const override {
    return ahead_.Paused([this] { return inner_->Counts(); });
  }
  std::vector<sources::PendingFile> Pending() const override {
    return ahead_.Paused([this] { return inner_->Pending(); });
  }
  std::optional<std::string> Lag() override {
    return ahead_.Paused([this] { return inner_->Lag(); });
  }
  // Not paused: the source takes it while reading (the point is to tell its upstream soon).
  void Committed(const json::Json& end) override { inner_->Committed(end); }

 private:
  std::unique_ptr<BatchSource> inner_;
  ReadAhead<InputBatch> ahead_;  // after inner_: stopped before it goes
};

}  // namespace

std::unique_ptr<BatchSource> ReadingAhead(std::unique_ptr<BatchSource> inner) {
  return std::make_unique<ReadAheadSource>(std::move(inner));
}

}  // namespace cdclake::pipeline
