// PostgresServer (tests only): a real PostgreSQL cluster in a temporary folder on a free
// loopback port, with logical replication on; stopped and removed when it goes out of scope.
#pragma once

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "sources/postgres/pg_connection.h"

namespace cdclake::sources::postgres::testing {

class PostgresServer {
 public:
  /// initdb into a new temporary folder and start the server with wal_level=logical and the
  /// replication limits the tests need, plus `settings` ("name=value"). As root the server runs
  /// as the `postgres` user (initdb refuses root). The binaries are CDCLAKE_PG_BINDIR's, else the
  /// newest /usr/lib/postgresql/N/bin.
  static Result<std::unique_ptr<PostgresServer>> Start(
      const std::vector<std::string>& settings = {}) {
    std::unique_ptr<PostgresServer> server(new PostgresServer());
    CDCLAKE_RETURN_IF_ERROR(server->Init(settings));
    return server;
  }

  ~PostgresServer() {
    if (started_) (void)Control("stop -m immediate");
    std::error_code ignored;
    if (!folder_.empty()) std::filesystem::remove_all(folder_, ignored);
  }

  /// libpq's connection string for `database` as the cluster's superuser.
  std::string conninfo(const std::string& database = "postgres") const {
    return "host=127.0.0.1 port=" + std::to_string(port_) + " user=cdclake dbname=" + database +
           " connect_timeout=10";
  }
  int port() const { return port_; }
  const std::string& folder() const { return folder_; }

  /// pg_ctl restart with `mode` (fast, immediate).
  Status Restart(const std::string& mode) { return Control("restart -m " + mode); }
  Status Stop(const std::string& mode) {
    started_ = false;
    return Control("stop -m " + mode);
  }
  Status StartAgain() {
    CDCLAKE_RETURN_IF_ERROR(Control("start"));
    started_ = true;
    return Status::OK();
  }

 private:
  PostgresServer() = default;

  static std::string BinDir() {
    if (const char* dir = std::getenv("CDCLAKE_PG_BINDIR")) return dir;
    std::string best;
    int best_version = -1;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      std::string name = entry.path().filename().string();
      if (!std::filesystem::exists(entry.path() / "bin" / "initdb")) continue;
      int version = std::atoi(name.c_str());
      if (version > best_version) {
        best_version = version;
        best = (entry.path() / "bin").string();
      }
    }
    return best;
  }

  static int FreePort() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port = ntohs(address.sin_port);
    }
    close(fd);
    return port;
  }

  // Runs a PostgreSQL program as the server's user; its output goes to the folder's log.
  Status Run(const std::string& program, const std::string& arguments) {
    std::string log = folder_ + "/commands.log";
    std::string command = (geteuid() == 0 ? "runuser -u postgres -- " : "") + bindir_ + "/" +
                          program + " " + arguments + " >> " + log + " 2>&1";
    if (std::system(command.c_str()) != 0) {
      std::ifstream in(log);
      std::stringstream text;
      text << in.rdbuf();
      return Status::IoError("PostgreSQL test server: '" + command + "' failed:\n" + text.str());
    }
    return Status::OK();
  }

  Status Control(const std::string& action) {
    return Run("pg_ctl", "-D " + folder_ + "/data -l " + folder_ + "/server.log -w -t 60 " +
                             "-o \"" + options_ + "\" " + action);
  }

  Status Init(const std::vector<std::string>& settings) {
    bindir_ = BinDir();
    if (bindir_.empty()) {
      return Status::NotFound(
          "PostgreSQL test server: no /usr/lib/postgresql/N/bin/initdb (scripts/setup installs "
          "Debian's postgresql) and CDCLAKE_PG_BINDIR is not set");
    }
    char pattern[] = "/tmp/cdclake-pg-XXXXXX";
    if (mkdtemp(pattern) == nullptr) return Status::IoError("PostgreSQL test server: mkdtemp");
    folder_ = pattern;
    if (geteuid() == 0) {
      passwd* user = getpwnam("postgres");
      if (user == nullptr) return Status::NotFound("PostgreSQL test server: no user 'postgres'");
      if (chown(folder_.c_str(), user->pw_uid, user->pw_gid) != 0) {
        return Status::IoError("PostgreSQL test server: chown " + folder_);
      }
    }
    CDCLAKE_RETURN_IF_ERROR(Run("initdb", "-D " + folder_ +
                                              "/data -U cdclake --auth=trust -E UTF8 "
                                              "--no-locale --no-sync"));
    // A port found free can be taken by another test before the server binds it: a start
    // that fails is tried again on another port.
    Status started;
    for (int attempt = 0; attempt < 3; ++attempt) {
      port_ = FreePort();
      if (port_ == 0) return Status::IoError("PostgreSQL test server: no free loopback port");
      options_ = "-p " + std::to_string(port_) + " -c listen_addresses=127.0.0.1 -k " + folder_ +
                 " -c wal_level=logical -c max_wal_senders=10 -c max_replication_slots=10"
                 " -c logical_decoding_work_mem=64kB -c shared_buffers=16MB -c fsync=off";
      for (const std::string& s : settings) options_ += " -c " + s;
      started = Control("start");
      if (started.ok()) break;
    }
    CDCLAKE_RETURN_IF_ERROR(started);
    started_ = true;
    return Status::OK();
  }

  std::string bindir_;
  std::string folder_;
  std::string options_;
  int port_ = 0;
  bool started_ = false;
};

/// One server for every test of a test process that does not need its own (started at first
/// use, stopped at exit); nullptr, with a test failure, when it could not start.
inline PostgresServer* SharedPostgresServer() {
  static std::unique_ptr<PostgresServer> server = [] {
    auto started = PostgresServer::Start();
    EXPECT_TRUE(started.ok()) << started.status().ToString();
    return started.ok() ? std::move(*started) : nullptr;
  }();
  return server.get();
}

/// A connection to `database` on the shared server; nullptr, with a test failure, if none.
inline std::unique_ptr<PgConnection> ConnectToSharedServer(
    const std::string& database = "postgres") {
  if (SharedPostgresServer() == nullptr) return nullptr;
  auto db = PgConnection::Connect(SharedPostgresServer()->conninfo(database));
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

}  // namespace cdclake::sources::postgres::testing
