// HttpRoutes: the server's GET endpoints over the board and the warehouse's tables. Nothing
// here changes anything.
#pragma once

#include <map>
#include <string>

#include "io/file_system.h"
#include "server/flow_board.h"

namespace httplib {
class Server;
}

namespace cdclake::server {

struct RouteContext {
  const FlowBoard* board = nullptr;
  const io::FileSystem* fs = nullptr;
  std::string warehouse;
  std::map<std::string, std::string> tables;  // canonical name -> folder, every served table
  int64_t refresh_ms = 2000;
  /// Where the server listens. Bound to loopback, it answers only requests whose Host is a
  /// loopback name with this port, so a web page cannot read it through DNS rebinding.
  std::string host;
  int port = 0;
};

/// Whether a request with this Host header may be answered (see RouteContext::host).
bool HostAllowed(const RouteContext& context, const std::string& host_header);

/// Registers `/`, `/flow/NAME`, `/table/NAME`, `/metrics`, `/healthz` and `/readyz` on
/// `server`; `context` must outlive it.
void AddRoutes(httplib::Server& server, const RouteContext& context);

/// /readyz's body and whether every flow's last pass succeeded (ready).
std::pair<bool, std::string> Readiness(const std::vector<FlowCard>& cards);

}  // namespace cdclake::server
