// Pages: HTML built from the board's cards and the tables' facts.
#include "server/pages.h"

#include <cstdio>
#include <sstream>

#include "server/html.h"

namespace cdclake::server {

namespace {

std::string StateBadge(const FlowCard& c) {
  return "<span class=\"state state-" + Escape(c.state) + "\">" + Escape(c.state) + "</span>";
}

std::string FlowLink(const std::string& flow) {
  return "<a href=\"/flow/" + PathSegment(flow) + "\">" + Escape(flow) + "</a>";
}

std::string TableLink(const std::string& table) {
  return "<a href=\"/table/" + PathSegment(table) + "\">" + Escape(table) + "</a>";
}

std::string Num(int64_t n, const std::string& cls) {
  return "<td class=\"n " + cls + "\">" + CountText(n) + "</td>";
}

// Rows per second: whole numbers from 10 up, one decimal below.
std::string RateText(double rate) {
  if (rate >= 10) return CountText(static_cast<int64_t>(rate + 0.5));
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", rate);
  return buf;
}

std::string LagText(int64_t lag_ms) {
  return lag_ms < 0 ? "—" : DurationText(lag_ms);
}

std::string RetryText(const FlowCard& c, int64_t now_ms) {
  if (c.state != "failed" || c.retry_at_ms <= 0) return "";
  const int64_t in = c.retry_at_ms - now_ms;
  return " (failure " + std::to_string(c.failures_in_row) + " in a row; next try " +
         (in > 0 ? "in " + DurationText(in) : "now") + ")";
}

std::string LastCommit(const FlowCard& c) {
  if (!c.last_version) return "<span class=\"muted\">none since start</span>";
  return Escape(TimeText(c.last_commit_ms)) + " · v" + std::to_string(*c.last_version);
}

}  // namespace

std::string IndexPage(const PageContext& context, const std::vector<FlowCard>& cards,
                      const std::vector<TableGauge>& tables) {
  std::ostringstream b;
  int64_t failed = 0;
  for (const FlowCard& c : cards) failed += c.state == "failed" || c.state == "waiting";
  b << "<h1>" << cards.size() << " flows";
  if (failed > 0) b << ", <span class=\"state state-failed\">" << failed << " not ok</span>";
  b << "</h1><p class=\"muted\">warehouse " << Escape(context.warehouse) << "</p>\n";
  b << "<div class=\"wide\"><table "
       "id=\"flows\"><thead><tr><th>flow</th><th>state</th><th>source</th>"
       "<th>target</th><th>last commit</th><th class=\"n\">rows/s</th><th class=\"n\">lag</th>"
       "<th class=\"n\">read</th><th class=\"n\">applied</th><th class=\"n\">discarded</th>"
       "<th class=\"n\">quarantined</th><th class=\"n\">expectations failed</th></tr></thead>"
       "<tbody>\n";
  for (const FlowCard& c : cards) {
    b << "<tr data-flow=\"" << Escape(c.flow) << "\"><td>" << FlowLink(c.flow) << "<br><span "
      << "class=\"muted\">" << Escape(c.kind) << "</span></td><td>" << StateBadge(c)
      << "</td><td class=\"source\">" << Escape(c.source) << "</td><td>" << TableLink(c.target)
      << "</td><td class=\"last-commit\">" << LastCommit(c)
      << "</td><td class=\"n rows-per-second\">" << RateText(c.RowsPerSecond(context.now_ms))
      << "</td>"
      << "<td class=\"n lag\">" << LagText(c.last_lag_ms) << "</td>" << Num(c.rows_read, "read")
      << Num(c.rows_applied, "applied") << Num(c.rows_discarded, "discarded")
      << Num(c.rows_quarantined, "quarantined") << Num(c.expectation_failed, "expectations-failed")
      << "</tr>\n";
    if (!c.message.empty()) {
      b << "<tr class=\"message-row\" data-flow=\"" << Escape(c.flow)
        << "\"><td></td><td colspan=\"11\" class=\"message\">" << Escape(c.message)
        << Escape(RetryText(c, context.now_ms)) << "</td></tr>\n";
    }
  }
  b << "</tbody></table></div>\n<h2>Tables</h2>\n<table id=\"tables\"><thead><tr><th>table</th>"
       "<th class=\"n\">version</th><th class=\"n\">files</th><th class=\"n\">rows</th>"
       "<th>last commit</th></tr></thead><tbody>\n";
  for (const TableGauge& t : tables) {
    b << "<tr data-table=\"" << Escape(t.table) << "\"><td>" << TableLink(t.table) << "</td>";
    if (!t.facts) {
      if (t.error.empty()) {
        b << "<td colspan=\"4\" class=\"muted\">not created yet</td></tr>\n";
      } else {
        b << "<td colspan=\"4\" class=\"message\">cannot be read: " << Escape(t.error)
          << "</td></tr>\n";
      }
      continue;
    }
    b << "<td class=\"n version\">" << t.facts->version << "</td>" << Num(t.facts->files, "files")
      << (t.facts->rows < 0 ? "<td class=\"n rows\">—</td>" : Num(t.facts->rows, "rows")) << "<td>"
      << Escape(TimeText(t.facts->timestamp_ms)) << "</td></tr>\n";
  }
  b << "</tbody></table>\n";
  return HtmlPage("flows", b.str(), context.refresh_ms, context.now_ms);
}

std::string FlowPage(const PageContext& context, const FlowCard& c,
                     const Result<std::vector<LoggedBatch>>& logged) {
  std::ostringstream b;
  b << "<h1>flow " << Escape(c.flow) << " " << StateBadge(c) << "</h1>\n";
  if (!c.message.empty()) {
    b << "<p class=\"message\">" << Escape(c.message) << Escape(RetryText(c, context.now_ms))
      << "</p>\n";
  }
  b << "<dl id=\"card\"><dt>pipeline</dt><dd>" << Escape(c.pipeline) << "</dd><dt>kind</dt><dd>"
    << Escape(c.kind) << "</dd><dt>source</dt><dd>" << Escape(c.source)
    << "</dd><dt>target</dt><dd>" << TableLink(c.target) << "</dd><dt>last commit</dt><dd>"
    << LastCommit(c) << "</dd><dt>lag</dt><dd>" << LagText(c.last_lag_ms)
    << "</dd><dt>since serve started</dt><dd><span class=\"batches\">" << CountText(c.batches)
    << "</span> batches, <span class=\"read\">" << CountText(c.rows_read)
    << "</span> rows read, <span class=\"applied\">" << CountText(c.rows_applied)
    << "</span> applied, <span class=\"discarded\">" << CountText(c.rows_discarded)
    << "</span> discarded, <span class=\"quarantined\">" << CountText(c.rows_quarantined)
    << "</span> quarantined, <span class=\"expectations-failed\">"
    << CountText(c.expectation_failed) << "</span> expectation checks failed, "
    << CountText(c.failures) << " failed passes</dd></dl>\n";
  std::vector<ChartPoint> rate;
  std::vector<ChartPoint> lag;
  for (const BatchPoint& p : c.recent) {
    rate.push_back({p.time_ms, p.duration_ms > 0 ? static_cast<double>(p.rows) * 1000.0 /
                                                       static_cast<double>(p.duration_ms)
                                                 : static_cast<double>(p.rows)});
    if (p.lag_ms >= 0) lag.push_back({p.time_ms, static_cast<double>(p.lag_ms) / 1000.0});
  }
  b << "<h2>Batches since serve started</h2><div class=\"charts\">"
    << SvgChart("throughput per batch", "rows/s", rate)
    << (lag.empty() && !rate.empty()
            ? SvgChart("lag per batch (the inputs' write times are not known)", "s", lag)
            : SvgChart("lag per batch", "s", lag))
    << "</div>\n<h2>Recent batches (event log)</h2>\n";
  if (!logged.ok()) {
    b << "<p class=\"message\">the event log cannot be read: " << Escape(logged.status().ToString())
      << "</p>\n";
  } else if (logged->empty()) {
    b << "<p class=\"muted\">no batches logged yet</p>\n";
  } else {
    b << "<table id=\"batches\"><thead><tr><th>time</th><th>event</th><th>input to</th>"
         "<th class=\"n\">read</th><th class=\"n\">applied</th><th class=\"n\">discarded</th>"
         "<th class=\"n\">quarantined</th><th class=\"n\">version</th><th class=\"n\">took</th>"
         "<th>status</th></tr></thead><tbody>\n";
    for (const LoggedBatch& e : *logged) {
      b << "<tr><td>" << Escape(TimeText(e.time_ms)) << "</td><td>" << Escape(e.event_type)
        << "</td><td>" << Escape(e.input_to) << "</td>" << Num(e.rows_read, "read")
        << Num(e.rows_applied, "applied") << Num(e.rows_discarded, "discarded")
        << Num(e.rows_quarantined, "quarantined") << "<td class=\"n version\">"
        << (e.table_version ? std::to_string(*e.table_version) : "—") << "</td><td class=\"n\">"
        << DurationText(e.duration_ms) << "</td><td>" << Escape(e.status);
      if (!e.message.empty()) b << "<div class=\"message\">" << Escape(e.message) << "</div>";
      b << "</td></tr>\n";
    }
    b << "</tbody></table>\n";
  }
  return HtmlPage("flow " + c.flow, b.str(), context.refresh_ms, context.now_ms);
}

std::string TablePage(const PageContext& context, const std::string& table,
                      const std::string& folder, const Result<TableFacts>& facts,
                      const Result<std::vector<CommitFacts>>& commits,
                      const std::vector<FlowCard>& writers) {
  std::ostringstream b;
  b << "<h1>table " << Escape(table) << "</h1>\n<dl id=\"facts\"><dt>folder</dt><dd>"
    << Escape(folder) << "</dd><dt>written by</dt><dd>";
  for (size_t i = 0; i < writers.size(); ++i) {
    b << (i > 0 ? ", " : "") << FlowLink(writers[i].flow);
  }
  b << "</dd>";
  if (!facts.ok()) {
    b << "</dl><p class=\"muted\">" << Escape(facts.status().message()) << "</p>\n";
    return HtmlPage("table " + table, b.str(), context.refresh_ms, context.now_ms);
  }
  b << "<dt>version</dt><dd class=\"version\">" << facts->version << "</dd><dt>files</dt><dd>"
    << CountText(facts->files) << " (" << CountText(facts->bytes) << " bytes)</dd><dt>rows</dt>"
    << "<dd class=\"rows\">" << (facts->rows < 0 ? "—" : CountText(facts->rows)) << "</dd>";
  if (!facts->partition_columns.empty()) {
    b << "<dt>partitioned by</dt><dd>";
    for (size_t i = 0; i < facts->partition_columns.size(); ++i) {
      b << (i > 0 ? ", " : "") << Escape(facts->partition_columns[i]);
    }
    b << "</dd>";
  }
  b << "</dl>\n<h2>Schema</h2>\n<table id=\"schema\"><thead><tr><th>column</th><th>type</th>"
       "<th>nullable</th></tr></thead><tbody>\n";
  for (const data::Field& f : facts->schema.fields()) {
    b << "<tr><td>" << Escape(f.name) << "</td><td>" << Escape(f.type->ToString()) << "</td><td>"
      << (f.nullable ? "yes" : "no") << "</td></tr>\n";
  }
  b << "</tbody></table>\n<h2>History</h2>\n";
  if (!commits.ok()) {
    b << "<p class=\"message\">" << Escape(commits.status().ToString()) << "</p>\n";
  } else {
    b << "<table id=\"history\"><thead><tr><th class=\"n\">version</th><th>time</th>"
         "<th>operation</th><th>metrics</th></tr></thead><tbody>\n";
    for (const CommitFacts& c : *commits) {
      b << "<tr><td class=\"n\">" << c.version << "</td><td>" << Escape(TimeText(c.timestamp_ms))
        << "</td><td>" << Escape(c.operation) << "</td><td class=\"muted\">" << Escape(c.metrics)
        << "</td></tr>\n";
    }
    b << "</tbody></table>\n";
  }
  return HtmlPage("table " + table, b.str(), context.refresh_ms, context.now_ms);
}

std::string NotFoundPage(const PageContext& context, const std::string& what) {
  return HtmlPage("not found",
                  "<h1>" + Escape(what) + " not found</h1><p><a href=\"/\">all flows</a></p>\n", 0,
                  context.now_ms);
}

}  // namespace cdclake::server
