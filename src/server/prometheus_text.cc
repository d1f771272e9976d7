// PrometheusText: one HELP and TYPE line per metric family, then its samples.
#include "server/prometheus_text.h"

#include <cmath>
#include <functional>
#include <sstream>

namespace cdclake::server {

namespace {

std::string FlowLabels(const FlowCard& c) {
  return "flow=\"" + EscapeLabel(c.flow) + "\",target=\"" + EscapeLabel(c.target) +
         "\",pipeline=\"" + EscapeLabel(c.pipeline) + "\"";
}

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  std::ostringstream out;
  out.precision(15);
  out << v;
  return out.str();
}

class Writer {
 public:
  void Family(const std::string& name, const std::string& type, const std::string& help) {
    out_ << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
  }
  void Sample(const std::string& name, const std::string& labels, double value) {
    out_ << name;
    if (!labels.empty()) out_ << "{" << labels << "}";
    out_ << " " << Number(value) << "\n";
  }
  std::string Text() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

void FlowFamily(Writer& w, const std::vector<FlowCard>& cards, const std::string& name,
                const std::string& type, const std::string& help,
                const std::function<std::optional<double>(const FlowCard&)>& value) {
  w.Family(name, type, help);
  for (const FlowCard& c : cards) {
    if (std::optional<double> v = value(c)) w.Sample(name, FlowLabels(c), *v);
  }
}

}  // namespace

std::string EscapeLabel(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

std::string PrometheusText(const std::vector<FlowCard>& cards,
                           const std::vector<TableGauge>& tables) {
  using V = std::optional<double>;
  auto d = [](int64_t v) { return static_cast<double>(v); };
  Writer w;
  FlowFamily(
      w, cards, "cdclake_flow_up", "gauge",
      "0 when the flow's last pass failed or it waits on a failed upstream, else 1 (also before "
      "its first pass ends)",
      [](const FlowCard& c) -> V { return c.state == "failed" || c.state == "waiting" ? 0 : 1; });
  FlowFamily(w, cards, "cdclake_flow_batches_total", "counter", "Batches committed",
             [&](const FlowCard& c) -> V { return d(c.batches); });
  FlowFamily(w, cards, "cdclake_flow_rows_read_total", "counter", "Rows read from the source",
             [&](const FlowCard& c) -> V { return d(c.rows_read); });
  FlowFamily(w, cards, "cdclake_flow_rows_applied_total", "counter", "Rows applied to the target",
             [&](const FlowCard& c) -> V { return d(c.rows_applied); });
  FlowFamily(w, cards, "cdclake_flow_rows_discarded_total", "counter",
             "Rows discarded: older than the key's state, or duplicates",
             [&](const FlowCard& c) -> V { return d(c.rows_discarded); });
  FlowFamily(w, cards, "cdclake_flow_rows_quarantined_total", "counter",
             "Rows set aside in the flow's quarantine table",
             [&](const FlowCard& c) -> V { return d(c.rows_quarantined); });
  FlowFamily(w, cards, "cdclake_flow_expectation_failures_total", "counter",
             "Expectation checks failed (a row failing two expectations counts twice)",
             [&](const FlowCard& c) -> V { return d(c.expectation_failed); });
  FlowFamily(w, cards, "cdclake_flow_rows_dropped_total", "counter",
             "Rows dropped by expectations (ON VIOLATION DROP ROW)",
             [&](const FlowCard& c) -> V { return d(c.rows_dropped); });
  FlowFamily(w, cards, "cdclake_flow_failures_total", "counter", "Passes in which the flow failed",
             [&](const FlowCard& c) -> V { return d(c.failures); });
  FlowFamily(w, cards, "cdclake_flow_last_commit_timestamp_seconds", "gauge",
             "When the flow last committed (seconds since the epoch)", [](const FlowCard& c) -> V {
               if (c.last_commit_ms == 0) return std::nullopt;
               return static_cast<double>(c.last_commit_ms) / 1000.0;
             });
  FlowFamily(w, cards, "cdclake_flow_lag_seconds", "gauge",
             "From the newest input's write to its commit, at the flow's last batch",
             [](const FlowCard& c) -> V {
               if (c.last_lag_ms < 0) return std::nullopt;
               return static_cast<double>(c.last_lag_ms) / 1000.0;
             });
  const std::string hist = "cdclake_flow_batch_duration_seconds";
  w.Family(hist, "histogram", "How long each batch took, from reading to commit");
  const std::vector<double>& bounds = DurationBounds();
  for (const FlowCard& c : cards) {
    int64_t cumulative = 0;
    for (size_t i = 0; i <= bounds.size(); ++i) {
      cumulative += c.duration_counts.size() > i ? c.duration_counts[i] : 0;
      const double le = i < bounds.size() ? bounds[i] : INFINITY;
      w.Sample(hist + "_bucket", FlowLabels(c) + ",le=\"" + Number(le) + "\"", d(cumulative));
    }
    w.Sample(hist + "_sum", FlowLabels(c), c.duration_sum_s);
    w.Sample(hist + "_count", FlowLabels(c), d(cumulative));
  }
  auto table_family = [&](const std::string& name, const std::string& help,
                          const std::function<V(const TableFacts&)>& value) {
    w.Family(name, "gauge", help);
    for (const TableGauge& t : tables) {
      if (!t.facts) continue;
      if (V v = value(*t.facts)) w.Sample(name, "table=\"" + EscapeLabel(t.table) + "\"", *v);
    }
  };
  table_family("cdclake_table_version", "The table's latest Delta version",
               [&](const TableFacts& f) -> V { return d(f.version); });
  table_family("cdclake_table_files", "Data files in the table's latest version",
               [&](const TableFacts& f) -> V { return d(f.files); });
  table_family("cdclake_table_rows", "Rows in the table's latest version (from file statistics)",
               [&](const TableFacts& f) -> V {
                 if (f.rows < 0) return std::nullopt;
                 return d(f.rows);
               });
  table_family("cdclake_table_bytes", "Bytes of the table's data files",
               [&](const TableFacts& f) -> V { return d(f.bytes); });
  return w.Text();
}

}  // namespace cdclake::server
