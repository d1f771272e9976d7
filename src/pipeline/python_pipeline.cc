// Running python3 on a pipeline file and reading the SQL it prints.
#include "pipeline/python_pipeline.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "io/canonical_path.h"
#include "io/local_file_system.h"
#include "json/json.h"

extern char** environ;

namespace cdclake::pipeline {
namespace {

// Where the installed modules are from the file holding this code (cmake/install.cmake): the
// program `<prefix>/bin/cdclake`, or the Python module
// `<prefix>/lib/python3/dist-packages/cdclake.*.so`, each with `<prefix>/share/cdclake/python`.
constexpr std::string_view kInstalledPythonDirs[] = {"/../share/cdclake/python",
                                                     "/../../../share/cdclake/python"};

std::string PythonDir() {
  if (const char* dir = std::getenv("CDCLAKE_PYTHON_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  // The file this code is in, not /proc/self/exe: in the Python module that is python3's.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&PythonDir), &info) != 0 && info.dli_fname != nullptr) {
    const io::LocalFileSystem fs;
    if (Result<std::string> file = io::Canonical(fs, info.dli_fname); file.ok()) {
      const std::string folder = file->substr(0, file->rfind('/'));
      for (std::string_view installed : kInstalledPythonDirs) {
        std::string dir = io::LexicalNormal(folder + std::string(installed));
        if (Result<bool> exists = fs.Exists(dir); exists.ok() && *exists) return dir;
      }
    }
  }
  return CDCLAKE_PYTHON_DIR;  // the source tree's python/, for a binary run from its build
}

// `fd` moved above 2 (see below), or -1 with errno set.
int AboveStandardStreams(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int error = errno;
  close(fd);
  errno = error;
  return moved;
}

// What `fd` holds from its current offset to its end.
std::string ReadToEnd(int fd) {
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

bool IsPythonPipeline(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0;
}

Result<std::string> TranslatePythonPipeline(const std::string& path,
                                            const std::map<std::string, std::string>& vars,
                                            const std::string& warehouse) {
  json::Json values = json::Json::object();
  for (const auto& [key, value] : vars) values[key] = value;
  // The environment, with the modules first on the path and the variables.
  std::vector<std::string> env;
  std::string python_path = "PYTHONPATH=" + PythonDir();
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PYTHONPATH=", 11) == 0) {
      if ((*e)[11] != '\0') python_path += std::string(":") + (*e + 11);
    } else if (std::strncmp(*e, "CDCLAKE_PIPELINE_VARS=", 22) != 0 &&
               std::strncmp(*e, "CDCLAKE_WAREHOUSE=", 18) != 0 &&
               std::strncmp(*e, "PYTHONUTF8=", 11) != 0) {
      env.emplace_back(*e);
    }
  }
  env.push_back(python_path);
  env.push_back("PYTHONUTF8=1");  // the SQL is UTF-8 whatever the locale says
  env.push_back("CDCLAKE_PIPELINE_VARS=" + json::Dump(values));
  if (!warehouse.empty()) env.push_back("CDCLAKE_WAREHOUSE=" + warehouse);
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  // -P: the current folder is not put first on the module path (a json.py or dlt.py there would
  // shadow what the translator imports).
  std::vector<std::string> args = {"python3", "-B", "-P", "-m", "cdclake_pipeline.translate", path};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  if (pipe(out) != 0) return Status::IoError("pipe: " + std::string(std::strerror(errno)));
  // Both ends above 2: with this process's stdout closed, pipe() hands out fd 1, which the child's
  // dup2 onto stdout and close of the other end would undo.
  for (int& fd : out) {
    fd = AboveStandardStreams(fd);
    if (fd < 0) return Status::IoError("fcntl: " + std::string(std::strerror(errno)));
  }
  // The translator's stderr (its messages, a traceback) goes to a file of its own: a failure
  // carries it in its error, which reaches a caller that has no terminal (a notebook).
  const int err = AboveStandardStreams(memfd_create("cdclake-translate-stderr", MFD_CLOEXEC));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  if (err >= 0) posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "python3", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    if (err >= 0) close(err);
    return Status::NotFound(path + ": cannot run python3 for a Python pipeline: " +
                            std::strerror(spawned) + " (install Debian's python3)");
  }
  std::string sql = ReadToEnd(out[0]);
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string said;  // what the translator wrote on stderr
  if (err >= 0) {
    if (lseek(err, 0, SEEK_SET) == 0) said = ReadToEnd(err);
    close(err);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    constexpr size_t kKept = 8192;  // a traceback's end says what went wrong
    if (err < 0) {
      said = "(its messages are above)";
    } else if (said.size() > kKept) {
      said = "..." + said.substr(said.size() - kKept);
    }
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (said.empty()) {
      said = WIFEXITED(status) ? "python3 exited with " + std::to_string(WEXITSTATUS(status)) +
                                     " and said nothing"
                               : "python3 was ended by signal " + std::to_string(WTERMSIG(status));
    }
    return Status::InvalidArgument(path + ": the Python pipeline did not translate:\n" + said);
  }
  // Warnings and the file's own prints to stderr, passed on.
  for (size_t done = 0; done < said.size();) {
    const ssize_t n = write(STDERR_FILENO, said.data() + done, said.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  return sql;
}

Status WithPythonOrigin(const Status& error, const std::string& sql) {
  const std::string& message = error.message();
  const size_t at = message.find(": line ") == std::string::npos ? message.find("line ")
                                                                 : message.find(": line ") + 2;
  if (at == std::string::npos) return error;
  size_t n = 0;
  size_t i = at + 5;
  while (i < message.size() && message[i] >= '0' && message[i] <= '9') {
    n = n * 10 + static_cast<size_t>(message[i] - '0');
    ++i;
  }
  if (n == 0) return error;
  // The statement's `-- FILE:LINE` comment: the last one at or before line n.
  std::string origin;
  size_t line = 1;
  size_t start = 0;
  while (start < sql.size() && line <= n) {
    size_t end = sql.find('\n', start);
    if (end == std::string::npos) end = sql.size();
    constexpr std::string_view kMarker = "-- cdclake: declared at ";
    if (sql.compare(start, kMarker.size(), kMarker) == 0) {
      origin = sql.substr(start + kMarker.size(), end - start - kMarker.size());
    }
    start = end + 1;
    ++line;
  }
  if (origin.empty()) return error;
  // The message's first line gets it; the statement's text after it stays as it is.
  const size_t eol = message.find('\n');
  std::string out = message.substr(0, eol) + " (the statement declared at " + origin + ")";
  if (eol != std::string::npos) out += message.substr(eol);
  return Status(error.code(), std::move(out));
}

}  // namespace cdclake::pipeline
