// HttpRoutes: each endpoint copies the board, reads what it shows and renders it.
#include "server/http_routes.h"

#include <httplib.h>

#include "delta/transaction.h"
#include "pipeline/warehouse.h"
#include "server/pages.h"
#include "server/prometheus_text.h"
#include "server/table_facts.h"

namespace cdclake::server {

namespace {

constexpr const char* kHtml = "text/html; charset=utf-8";
constexpr size_t kLoggedBatches = 50;
constexpr size_t kCommits = 30;

std::vector<TableGauge> Gauges(const RouteContext& c) {
  std::vector<TableGauge> out;
  for (const auto& [name, folder] : c.tables) {
    TableGauge g;
    g.table = name;
    auto facts = LoadTableFacts(*c.fs, folder);
    if (facts.ok()) {
      g.facts = std::move(*facts);
    } else if (facts.status().code() != StatusCode::kNotFound) {
      g.error = facts.status().ToString();
    }
    out.push_back(std::move(g));
  }
  return out;
}

PageContext Page(const RouteContext& c) {
  return PageContext{c.warehouse, delta::NowMillis(), c.refresh_ms};
}

}  // namespace

bool HostAllowed(const RouteContext& context, const std::string& host_header) {
  const std::string& h = context.host;
  if (h != "127.0.0.1" && h != "localhost" && h != "::1") return true;  // bound on purpose
  const std::string port = ":" + std::to_string(context.port);
  for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) {
    if (host_header == name + port) return true;
  }
  return false;
}

std::pair<bool, std::string> Readiness(const std::vector<FlowCard>& cards) {
  std::string not_ready;
  for (const FlowCard& c : cards) {
    if (c.state == "ok" || c.state == "skipped") continue;
    not_ready +=
        "flow " + c.flow + ": " + c.state + (c.message.empty() ? "" : ": " + c.message) + "\n";
  }
  if (not_ready.empty()) return {true, "ready: " + std::to_string(cards.size()) + " flows ok\n"};
  return {false, "not ready\n" + not_ready};
}

void AddRoutes(httplib::Server& server, const RouteContext& context) {
  const RouteContext* c = &context;
  server.set_pre_routing_handler([c](const httplib::Request& req, httplib::Response& res) {
    if (HostAllowed(*c, req.get_header_value("Host")))
      return httplib::Server::HandlerResponse::Unhandled;
    res.status = 421;  // Misdirected Request
    res.set_content("this server answers requests for 127.0.0.1:" + std::to_string(c->port) +
                        " or localhost:" + std::to_string(c->port) + " only\n",
                    "text/plain; charset=utf-8");
    return httplib::Server::HandlerResponse::Handled;
  });
  server.Get("/", [c](const httplib::Request&, httplib::Response& res) {
    res.set_content(IndexPage(Page(*c), c->board->Cards(), Gauges(*c)), kHtml);
  });
  server.Get(R"(/flow/([^/]+))", [c](const httplib::Request& req, httplib::Response& res) {
    const std::string flow = req.matches[1];
    std::optional<FlowCard> card = c->board->Card(flow);
    if (!card) {
      res.status = 404;
      res.set_content(NotFoundPage(Page(*c), "flow " + flow), kHtml);
      return;
    }
    auto logged =
        RecentLoggedBatches(*c->fs, pipeline::EventLogFolder(c->warehouse), flow, kLoggedBatches);
    res.set_content(FlowPage(Page(*c), *card, logged), kHtml);
  });
  server.Get(R"(/table/([^/]+))", [c](const httplib::Request& req, httplib::Response& res) {
    const std::string table = req.matches[1];
    auto it = c->tables.find(table);
    if (it == c->tables.end()) {
      res.status = 404;
      res.set_content(NotFoundPage(Page(*c), "table " + table), kHtml);
      return;
    }
    std::vector<FlowCard> writers;
    for (FlowCard& card : c->board->Cards()) {
      if (card.target == table) writers.push_back(std::move(card));
    }
    auto facts = LoadTableFacts(*c->fs, it->second);
    Result<std::vector<CommitFacts>> commits =
        facts.ok() ? RecentCommits(*c->fs, it->second, kCommits)
                   : Result<std::vector<CommitFacts>>(std::vector<CommitFacts>{});
    res.set_content(TablePage(Page(*c), table, it->second, facts, commits, writers), kHtml);
  });
  server.Get("/metrics", [c](const httplib::Request&, httplib::Response& res) {
    res.set_content(PrometheusText(c->board->Cards(), Gauges(*c)),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  server.Get("/readyz", [c](const httplib::Request&, httplib::Response& res) {
    auto [ready, text] = Readiness(c->board->Cards());
    res.status = ready ? 200 : 503;
    res.set_content(text, "text/plain; charset=utf-8");
  });
  server.set_error_handler([c](const httplib::Request& req, httplib::Response& res) {
    if (res.status != 404 || !res.body.empty()) return;
    res.set_content(NotFoundPage(Page(*c), req.path), kHtml);
  });
}

}  // namespace cdclake::server
