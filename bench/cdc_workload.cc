// cdc_workload: writes the deterministic change-data-capture workload of the apply benchmark
// (issue 7): an initial table as CSV, then B batches of change events as CSV and as Debezium
// PostgreSQL JSON, all described by workload.json (the shared workload folder format).
//
//   cdc_workload --out DIR --keys K --batch N --batches B [--mix 70,20,10] [--late 0.02]
//                [--duplicate 0.02] [--zipf 0.99] [--seed 1] [--formats csv,debezium]
//
// Same arguments, same bytes on any machine: choices come from std::mt19937_64's raw output
// (never std::*_distribution, whose results are implementation-defined), row values from an
// integer hash of (seed, key, lsn), and the Zipf arithmetic uses IEEE basic operations only
// (its own log and exp; the target is built with -ffp-contract=off). Only the standard library
// is used, so errors are carried as a small local Status rather than cdclake's.
#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "usage: cdc_workload --out DIR --keys K --batch N --batches B [--mix 70,20,10]\n"
    "                    [--late 0.02] [--duplicate 0.02] [--zipf 0.99] [--seed 1]\n"
    "                    [--formats csv,debezium]\n"
    "  --mix       update,insert,delete weights (any positive scale)\n"
    "  --late      fraction of events held back to the next batch, in [0, 1)\n"
    "  --duplicate fraction of events delivered twice, in [0, 1]\n"
    "  --zipf      skew of updated and deleted keys, in [0, 1) (0 is uniform)\n"
    "  --formats   csv, debezium or both for the batch files (load.csv is always written)\n";

/// A failure message, or success. The program links no project library, so it carries its
/// errors in this small value instead of cdclake::Status.
class [[nodiscard]] Status {
 public:
  static Status Ok() { return Status(); }
  static Status Fail(std::string message) {
    Status s;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

#define WORKLOAD_RETURN_IF_ERROR(expr) \
  do {                                 \
    Status status_ = (expr);           \
    if (!status_.ok()) return status_; \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Arguments

struct Args {
  std::string out;
  int64_t keys = -1;
  int64_t batch = -1;
  int64_t batches = -1;
  std::array<double, 3> mix = {70, 20, 10};  // update, insert, delete weights as given
  double late = 0.02;
  double duplicate = 0.02;
  double zipf = 0.99;
  uint64_t seed = 1;
  bool csv = true;
  bool debezium = true;
  bool help = false;
};

bool ParseInt(std::string_view s, int64_t* v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size();
}

bool ParseDouble(std::string_view s, double* v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(*v);
}

Status ParseMix(std::string_view s, std::array<double, 3>* mix) {
  for (size_t i = 0; i < 3; ++i) {
    size_t comma = s.find(',');
    std::string_view part = i < 2 ? s.substr(0, comma) : s;
    if ((i < 2 && comma == std::string_view::npos) || !ParseDouble(part, &(*mix)[i]) ||
        (*mix)[i] < 0) {
      return Status::Fail("--mix wants three non-negative numbers UPDATE,INSERT,DELETE");
    }
    if (i < 2) s.remove_prefix(comma + 1);
  }
  if ((*mix)[0] + (*mix)[1] + (*mix)[2] <= 0) return Status::Fail("--mix weights sum to zero");
  return Status::Ok();
}

Status ParseFormats(std::string_view s, Args* a) {
  a->csv = a->debezium = false;
  while (true) {
    size_t comma = s.find(',');
    std::string_view part = s.substr(0, comma);
    if (part == "csv") {
      a->csv = true;
    } else if (part == "debezium") {
      a->debezium = true;
    } else {
      return Status::Fail("--formats takes csv, debezium or csv,debezium, not '" +
                          std::string(part) + "'");
    }
    if (comma == std::string_view::npos) return Status::Ok();
    s.remove_prefix(comma + 1);
  }
}

Status ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      a->help = true;
      return Status::Ok();
    }
    if (i + 1 >= argc) return Status::Fail(std::string(flag) + " needs a value");
    std::string_view v = argv[++i];
    bool good = true;
    if (flag == "--out") {
      a->out = v;
      good = !v.empty();
    } else if (flag == "--keys") {
      good = ParseInt(v, &a->keys);
    } else if (flag == "--batch") {
      good = ParseInt(v, &a->batch);
    } else if (flag == "--batches") {
      good = ParseInt(v, &a->batches);
    } else if (flag == "--mix") {
      WORKLOAD_RETURN_IF_ERROR(ParseMix(v, &a->mix));
    } else if (flag == "--late") {
      good = ParseDouble(v, &a->late);
    } else if (flag == "--duplicate") {
      good = ParseDouble(v, &a->duplicate);
    } else if (flag == "--zipf") {
      good = ParseDouble(v, &a->zipf);
    } else if (flag == "--seed") {
      int64_t seed = 0;
      good = ParseInt(v, &seed) && seed >= 0;
      a->seed = static_cast<uint64_t>(seed);
    } else if (flag == "--formats") {
      WORKLOAD_RETURN_IF_ERROR(ParseFormats(v, a));
    } else {
      return Status::Fail("unknown option " + std::string(flag));
    }
    if (!good) return Status::Fail("bad value '" + std::string(v) + "' for " + std::string(flag));
  }
  if (a->out.empty()) return Status::Fail("--out is required");
  // Keys stay below 2^32 so the rank scatter's product fits 64 bits; B fits the 4-digit names;
  // N*B is capped so lsn-derived timestamps stay within 4-digit years.
  if (a->keys < 1 || a->keys > int64_t{0xFFFFFFFF}) {
    return Status::Fail("--keys is required, from 1 to 4294967295");
  }
  if (a->batch < 1) return Status::Fail("--batch is required and must be at least 1");
  if (a->batches < 1 || a->batches > 9999) {
    return Status::Fail("--batches is required, from 1 to 9999");
  }
  if (a->batch > int64_t{10'000'000'000} / a->batches) {
    return Status::Fail("--batch times --batches must stay below 10^10 events");
  }
  if (a->late < 0 || a->late >= 1) return Status::Fail("--late must be in [0, 1)");
  if (a->duplicate < 0 || a->duplicate > 1) return Status::Fail("--duplicate must be in [0, 1]");
  if (a->zipf < 0 || a->zipf >= 1) return Status::Fail("--zipf must be in [0, 1)");
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Portable arithmetic: random bits, hashing, and log/exp/pow from basic IEEE operations (the
// C library's pow may differ by an ulp between machines, which could move a Zipf rank).

double Uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1p-53;
}

// A value in [0, n); the modulo's bias (below n / 2^64) does not matter here.
uint64_t Below(std::mt19937_64& rng, uint64_t n) {
  return rng() % n;
}

// The SplitMix64 finalizer: a bijective 64-bit mix.
constexpr uint64_t Mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// A counter-based stream of 64-bit values, so a row's values follow from its inputs alone.
class Bits {
 public:
  explicit Bits(uint64_t state) : state_(state) {}
  uint64_t Next() { return Mix(state_ += 0x6A09E667F3BCC909ULL); }
  uint64_t Below(uint64_t n) { return Next() % n; }
  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with trailing zero bits
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
constexpr double kInvLn2 = 1.44269504088896338700e+00;

// ln x for x > 0: x = m 2^e (frexp is exact), ln m = 2 atanh((m-1)/(m+1)) by its series.
double Log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);
  if (m < 0.70710678118654752440) {
    m *= 2;
    --e;
  }
  const double f = (m - 1) / (m + 1);  // |f| < 0.172, so terms to f^23 reach double precision
  const double f2 = f * f;
  double s = 0;
  for (int k = 23; k >= 3; k -= 2) s = f2 * (1.0 / k + s);
  return e * kLn2Hi + (e * kLn2Lo + 2 * f * (1 + s));
}

// e^y: y = k ln 2 + r with |r| <= ln2 / 2, e^r by its Taylor series, then scaled by 2^k.
double Exp(double y) {
  if (y < -746) return 0;
  if (y > 709) return std::numeric_limits<double>::infinity();
  const double k = std::floor(y * kInvLn2 + 0.5);
  const double r = (y - k * kLn2Hi) - k * kLn2Lo;
  double s = 1;
  for (int i = 16; i >= 1; --i) s = 1 + s * r / i;
  return std::ldexp(s, static_cast<int>(k));
}

double Pow(double x, double y) {
  return Exp(y * Log(x));
}

// ---------------------------------------------------------------------------------------------
// Zipf ranks over a growing key space (Gray et al., "Quickly generating billion-record
// synthetic databases", SIGMOD 1994): zeta(n) grows by one term per new key, eta follows it.

class Zipf {
 public:
  Zipf(double theta, uint64_t n)
      : theta_(theta), alpha_(1 / (1 - theta)), zeta2_(1 + Pow(0.5, theta)) {
    for (uint64_t i = 1; i <= n; ++i) zetan_ += Pow(static_cast<double>(i), -theta_);
    n_ = n;
    UpdateEta();
  }

  /// One more key: rank n joins with weight 1 / (n+1)^theta.
  void Grow() {
    ++n_;
    zetan_ += Pow(static_cast<double>(n_), -theta_);
    UpdateEta();
  }

  /// The rank (0 is the hottest) for a uniform u in [0, 1).
  uint64_t Rank(double u) const {
    const double uz = u * zetan_;
    if (uz < 1 || n_ == 1) return 0;
    if (uz < zeta2_ || n_ == 2) return 1;
    const double base = eta_ * u - eta_ + 1;
    if (base <= 0) return 2;
    const auto r = static_cast<uint64_t>(static_cast<double>(n_) * Pow(base, alpha_));
    return std::min(r, n_ - 1);
  }

 private:
  void UpdateEta() {
    if (n_ > 2) eta_ = (1 - Pow(2.0 / static_cast<double>(n_), 1 - theta_)) / (1 - zeta2_ / zetan_);
  }

  double theta_;
  double alpha_;
  double zeta2_;
  double zetan_ = 0;
  double eta_ = 0;
  uint64_t n_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Events: which key changes how, at which lsn. Row values are derived later from these.

struct Event {
  int64_t id = 0;
  int64_t lsn = 0;
  int64_t tx = 0;
  char op = 'c';
};

constexpr int64_t kLoadLsn = 1000;
constexpr int64_t kFirstTx = 7000;

/// Generates change events in lsn order, keeping which keys are live.
class EventStream {
 public:
  explicit EventStream(const Args& a)
      : rng_(a.seed),
        zipf_(a.zipf, static_cast<uint64_t>(a.keys)),
        initial_keys_(static_cast<uint64_t>(a.keys)),
        // Primes above 2^32 > K, so each multiplier is coprime with K: rank -> id is one-to-one.
        update_scatter_{0x1FFFFFFFFFFFFFFFULL % initial_keys_, Mix(a.seed) % initial_keys_},
        delete_scatter_{4'294'967'311ULL % initial_keys_, Mix(a.seed + 1) % initial_keys_},
        live_(initial_keys_, true),
        live_count_(initial_keys_) {
    const double total = a.mix[0] + a.mix[1] + a.mix[2];
    update_below_ = a.mix[0] / total;
    insert_below_ = (a.mix[0] + a.mix[1]) / total;
    live_.reserve(initial_keys_ + static_cast<uint64_t>(a.batch * a.batches));
  }

  Event Next() {
    Event e;
    lsn_ += 56 + static_cast<int64_t>(Below(rng_, 200));
    e.lsn = lsn_;
    e.tx = kFirstTx + ordinal_++;
    const double u = Uniform01(rng_);
    e.op = u < update_below_ ? 'u' : u < insert_below_ ? 'c' : 'd';
    if (live_count_ == 0) e.op = 'c';
    if (e.op == 'c') {
      e.id = static_cast<int64_t>(live_.size());
      live_.push_back(true);
      ++live_count_;
      zipf_.Grow();
    } else {
      const uint64_t id = PickLive(e.op == 'u' ? update_scatter_ : delete_scatter_);
      e.id = static_cast<int64_t>(id);
      if (e.op == 'd') {
        live_[id] = false;
        --live_count_;
      }
    }
    return e;
  }

 private:
  // Ranks below K map to the initial ids as (rank * multiplier + offset) mod K, so hot keys are
  // spread out and stay the same keys as the space grows; the coldest ranks (>= K) are the
  // inserted ids themselves. Updates and deletes scatter differently: were the hottest keys of
  // updates also the hottest of deletes, each would be deleted after ~8 changes (the mix's
  // update:delete ratio) and the skew would flatten within the first batch. A deleted key is
  // redrawn a few times, then a uniform live key is taken.
  struct Scatter {
    uint64_t multiplier;
    uint64_t offset;
  };

  uint64_t PickLive(const Scatter& scatter) {
    for (int attempt = 0; attempt < 16; ++attempt) {
      const uint64_t rank = zipf_.Rank(Uniform01(rng_));
      const uint64_t id = rank < initial_keys_
                              ? (rank * scatter.multiplier + scatter.offset) % initial_keys_
                              : rank;
      if (live_[id]) return id;
    }
    const uint64_t n = live_.size();
    uint64_t id = Below(rng_, n);
    while (!live_[id]) id = id + 1 == n ? 0 : id + 1;
    return id;
  }

  std::mt19937_64 rng_;
  Zipf zipf_;
  uint64_t initial_keys_;
  Scatter update_scatter_;
  Scatter delete_scatter_;
  std::vector<bool> live_;  // by id; its size is the next insert's id
  uint64_t live_count_;
  double update_below_ = 0;
  double insert_below_ = 0;
  int64_t lsn_ = kLoadLsn;
  int64_t ordinal_ = 0;
};

/// One line of a batch file and why it is there.
struct Delivery {
  enum class Kind { kFresh, kLate, kDuplicate };
  Event event;
  Kind kind = Kind::kFresh;
};

struct BatchCounts {
  int64_t events = 0, fresh = 0, late = 0, duplicates = 0, inserts = 0, updates = 0, deletes = 0;
};

/// Decides the arrival order: late events wait for the next batch, duplicates come again later
/// in the same batch or in the next. Its own random stream, so --late and --duplicate change
/// only the order, never the events themselves.
class Arrivals {
 public:
  explicit Arrivals(const Args& a)
      : rng_(Mix(a.seed ^ 0xA076D15EA5E0ULL)), late_(a.late), duplicate_(a.duplicate) {}

  std::vector<Delivery> Order(const std::vector<Event>& fresh, bool last_batch) {
    std::vector<Event> on_time, held;
    for (const Event& e : fresh) {
      (late_ > 0 && Uniform01(rng_) < late_ ? held : on_time).push_back(e);
    }
    // What the previous batch passed on goes before a uniformly chosen on-time event (or last).
    std::vector<std::pair<uint64_t, Delivery>> incoming;
    for (const Event& e : carried_late_) {
      incoming.push_back({Below(rng_, on_time.size() + 1), {e, Delivery::Kind::kLate}});
    }
    for (const Event& e : carried_duplicates_) {
      incoming.push_back({Below(rng_, on_time.size() + 1), {e, Delivery::Kind::kDuplicate}});
    }
    carried_late_.clear();
    carried_duplicates_.clear();
    std::vector<Delivery> merged = Interleave(on_time, std::move(incoming));
    // The last batch has no next one: its held-back events arrive at its end.
    if (last_batch) {
      for (const Event& e : held) merged.push_back({e, Delivery::Kind::kLate});
    } else {
      carried_late_ = std::move(held);
    }

    // Each first delivery may come again: after itself in this batch, or in the next one.
    std::vector<std::pair<uint64_t, Delivery>> repeats;
    for (uint64_t j = 0; j < merged.size(); ++j) {
      if (merged[j].kind == Delivery::Kind::kDuplicate) continue;
      if (duplicate_ == 0 || Uniform01(rng_) >= duplicate_) continue;
      if (!last_batch && (rng_() & 1) != 0) {
        carried_duplicates_.push_back(merged[j].event);
      } else {
        const uint64_t gap = j + 1 + Below(rng_, merged.size() - j);
        repeats.push_back({gap, {merged[j].event, Delivery::Kind::kDuplicate}});
      }
    }
    std::vector<Delivery> out;
    std::stable_sort(repeats.begin(), repeats.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    out.reserve(merged.size() + repeats.size());
    size_t r = 0;
    for (uint64_t j = 0; j <= merged.size(); ++j) {
      while (r < repeats.size() && repeats[r].first == j) out.push_back(repeats[r++].second);
      if (j < merged.size()) out.push_back(merged[j]);
    }
    return out;
  }

 private:
  // Puts each incoming delivery before on_time[slot] (slot == size: at the end), keeping the
  // incoming order among equal slots.
  static std::vector<Delivery> Interleave(const std::vector<Event>& on_time,
                                          std::vector<std::pair<uint64_t, Delivery>> incoming) {
    std::stable_sort(incoming.begin(), incoming.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<Delivery> out;
    out.reserve(on_time.size() + incoming.size());
    size_t k = 0;
    for (uint64_t j = 0; j <= on_time.size(); ++j) {
      while (k < incoming.size() && incoming[k].first == j) out.push_back(incoming[k++].second);
      if (j < on_time.size()) out.push_back({on_time[j], Delivery::Kind::kFresh});
    }
    return out;
  }

  std::mt19937_64 rng_;
  double late_;
  double duplicate_;
  std::vector<Event> carried_late_;
  std::vector<Event> carried_duplicates_;
};

// ---------------------------------------------------------------------------------------------
// Row values, derived from (seed, id, lsn): per key (account, customer, email, country,
// created_at) and per event (quantity, prices, status, note, updated_at).

constexpr int64_t kUsPerDay = int64_t{86'400} * 1'000'000;

constexpr int64_t DayNumber(int y, int m, int d) {
  return std::chrono::sys_days{std::chrono::year{y} / m / d}.time_since_epoch().count();
}

constexpr int64_t kCreatedFromUs = DayNumber(2025, 1, 1) * kUsPerDay;
constexpr int64_t kStreamFromUs = DayNumber(2026, 3, 1) * kUsPerDay;  // after every load row

constexpr std::array<std::string_view, 5> kStatuses = {"new", "paid", "shipped", "returned",
                                                       "cancelled"};
constexpr std::array<std::string_view, 32> kFirstNames = {
    "Olivia",   "Liam",    "Emma",   "Noah",     "Amelia",    "Oliver", "Sophia", "Elijah",
    "Isabella", "Lucas",   "Mia",    "Mateo",    "Charlotte", "Levi",   "Harper", "Ethan",
    "Evelyn",   "James",   "Aurora", "Benjamin", "Chloe",     "Henry",  "Zoe",    "Samuel",
    "Nora",     "Hiroshi", "Ingrid", "Rafael",   "Priya",     "Tomasz", "Aisha",  "Mikko"};
constexpr std::array<std::string_view, 32> kLastNames = {
    "Hernandez", "Johansson", "Nakamura",  "Okafor",   "Schneider", "Kowalski", "Rossi",
    "Dubois",    "Fernandes", "Lindqvist", "Andersen", "Petrovic",  "Murphy",   "Novak",
    "Silva",     "Kim",       "Garcia",    "Nguyen",   "Patel",     "Muller",   "Jensen",
    "O'Brien",   "Costa",     "Horvat",    "Ivanova",  "Walker",    "Yilmaz",   "Moreau",
    "Bianchi",   "Svensson",  "Kaplan",    "Thompson"};
constexpr std::array<std::string_view, 4> kDomains = {"example.com", "example.org", "mail.test",
                                                      "shop.example.net"};
constexpr std::array<std::string_view, 24> kCountries = {
    "DE", "FR", "US", "GB", "NL", "SE", "PL", "IT", "ES", "PT", "JP", "BR",
    "CA", "AU", "IN", "MX", "KR", "NO", "FI", "DK", "AT", "BE", "CH", "IE"};
// Note pieces: commas, double quotes and apostrophes on purpose, to exercise quoting.
constexpr std::array<std::string_view, 16> kNotePieces = {"leave at the door",
                                                          "call on arrival",
                                                          "gift wrap, please",
                                                          "fragile",
                                                          "ring twice",
                                                          "\"urgent\"",
                                                          "back entrance, blue gate",
                                                          "no plastic",
                                                          "deliver after 5pm",
                                                          "ask for \"Sam\"",
                                                          "it's a gift",
                                                          "handle with care",
                                                          "box 12",
                                                          "reorder",
                                                          "said \"thanks\"",
                                                          "signature required"};

/// A short string built in place (every generated text fits 48 bytes).
struct Text {
  std::array<char, 48> data{};
  size_t size = 0;
  void Append(std::string_view s) {
    const size_t n = std::min(s.size(), data.size() - size);
    std::memcpy(data.data() + size, s.data(), n);
    size += n;
  }
  void Push(char c) {
    if (size < data.size()) data[size++] = c;
  }
  std::string_view view() const { return {data.data(), size}; }
};

struct Row {
  int64_t id = 0;
  int64_t account_id = 0;
  int64_t quantity = 0;
  int64_t amount_cents = 0;   // DECIMAL(12,2) in hundredths
  int64_t unit_price_e4 = 0;  // DECIMAL(10,4) in ten-thousandths
  std::string_view status;
  Text customer;
  Text email;
  std::string_view country;
  bool note_null = false;
  Text note;
  int64_t created_us = 0;
  int64_t updated_us = 0;
  int64_t commit_ms = 0;   // source.ts_ms: when the change committed
  int64_t emitted_ms = 0;  // ts_ms: when the connector emitted it
};

Row MakeRow(uint64_t seed, int64_t keys, int64_t id, int64_t lsn) {
  Row row;
  row.id = id;
  Bits key(Mix(seed ^ Mix(static_cast<uint64_t>(id) * 2 + 1)));
  row.account_id = 8'000'000'000 + static_cast<int64_t>(key.Below(5'000'000));
  const std::string_view first = kFirstNames[key.Below(kFirstNames.size())];
  const std::string_view last = kLastNames[key.Below(kLastNames.size())];
  row.customer.Append(first);
  row.customer.Push(' ');
  row.customer.Push(static_cast<char>('A' + key.Below(26)));
  row.customer.Append(". ");
  row.customer.Append(last);
  for (char c : first) row.email.Push(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  row.email.Push('.');
  row.email.Push(static_cast<char>(last[0] + 32));
  const uint64_t digits = key.Below(10'000);
  for (uint64_t div = 1000; div > 0; div /= 10)
    row.email.Push(static_cast<char>('0' + digits / div % 10));
  row.email.Push('@');
  row.email.Append(kDomains[key.Below(kDomains.size())]);
  row.country = kCountries[key.Below(kCountries.size())];
  // Initial rows were created in 2025; an inserted id's creation time is at most its insert
  // event's (ids past K are issued in lsn order, at least 56 lsn apart, 1 ms per lsn).
  const int64_t created_in_2025 = static_cast<int64_t>(key.Below(365 * kUsPerDay));
  row.created_us =
      id < keys ? kCreatedFromUs + created_in_2025 : kStreamFromUs + (id - keys) * 56'000;

  Bits change(Mix(key.state() ^ Mix(static_cast<uint64_t>(lsn))));
  row.quantity = 1 + static_cast<int64_t>(change.Below(100));
  row.unit_price_e4 = 100 + static_cast<int64_t>(change.Below(9'999'900));  // 0.0100 to 999.9999
  const uint64_t status = change.Below(kStatuses.size());
  row.status = kStatuses[status];
  row.amount_cents = (row.quantity * row.unit_price_e4 + 50) / 100;
  if (row.status == "returned") row.amount_cents = -row.amount_cents;
  if (row.status == "cancelled") row.amount_cents = 0;
  const uint64_t note = change.Next();
  row.note_null = note % 100 < 30;
  if (!row.note_null) {
    const size_t length = note / 100 % 41;  // 0 to 40 characters
    while (row.note.size < length) {
      if (row.note.size > 0) row.note.Append(change.Below(2) == 0 ? ", " : "; ");
      row.note.Append(kNotePieces[change.Below(kNotePieces.size())]);
    }
    row.note.size = std::min(row.note.size, length);
  }
  if (lsn == kLoadLsn) {
    row.updated_us = row.created_us + static_cast<int64_t>(change.Below(30 * kUsPerDay));
  } else {
    row.updated_us = kStreamFromUs + lsn * 1000 + static_cast<int64_t>(change.Below(1000));
  }
  row.commit_ms = row.updated_us / 1000;
  row.emitted_ms = row.commit_ms + 1 + static_cast<int64_t>(change.Below(400));
  return row;
}

// ---------------------------------------------------------------------------------------------
// Formatting into a raw buffer (the caller has reserved room for a whole line).

char* Put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

char* PutInt(char* p, int64_t v) {
  return std::to_chars(p, p + 24, v).ptr;
}

char* PutDigits(char* p, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return p + width;
}

// An unscaled decimal with exactly `scale` digits after the point: -12.30.
char* PutDecimal(char* p, int64_t unscaled, int scale, uint64_t pow10) {
  if (unscaled < 0) *p++ = '-';
  const uint64_t magnitude =
      unscaled < 0 ? 0 - static_cast<uint64_t>(unscaled) : static_cast<uint64_t>(unscaled);
  p = std::to_chars(p, p + 24, magnitude / pow10).ptr;
  *p++ = '.';
  return PutDigits(p, magnitude % pow10, scale);
}

// Microseconds since the epoch as 2026-01-02 03:04:05.123456 (UTC, no zone).
char* PutTimestamp(char* p, int64_t us) {
  int64_t days = us / kUsPerDay;
  int64_t rest = us % kUsPerDay;
  if (rest < 0) {
    rest += kUsPerDay;
    --days;
  }
  const std::chrono::year_month_day date{std::chrono::sys_days{std::chrono::days{days}}};
  p = PutDigits(p, static_cast<uint64_t>(static_cast<int>(date.year())), 4);
  *p++ = '-';
  p = PutDigits(p, static_cast<unsigned>(date.month()), 2);
  *p++ = '-';
  p = PutDigits(p, static_cast<unsigned>(date.day()), 2);
  *p++ = ' ';
  const auto micros = static_cast<uint64_t>(rest);
  p = PutDigits(p, micros / 3'600'000'000, 2);
  *p++ = ':';
  p = PutDigits(p, micros / 60'000'000 % 60, 2);
  *p++ = ':';
  p = PutDigits(p, micros / 1'000'000 % 60, 2);
  *p++ = '.';
  return PutDigits(p, micros % 1'000'000, 6);
}

// RFC 4180: quoted (quotes doubled) when it holds a comma, quote or line break; "" if empty.
char* PutCsvText(char* p, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos && !s.empty()) return Put(p, s);
  *p++ = '"';
  for (char c : s) {
    if (c == '"') *p++ = '"';
    *p++ = c;
  }
  *p++ = '"';
  return p;
}

char* PutJsonText(char* p, std::string_view s) {
  *p++ = '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      *p++ = '\\';
      *p++ = c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      p = Put(p, "\\u00");
      *p++ = "0123456789abcdef"[(c >> 4) & 0xF];
      *p++ = "0123456789abcdef"[c & 0xF];
    } else {
      *p++ = c;
    }
  }
  *p++ = '"';
  return p;
}

constexpr std::string_view kCsvHeader =
    "id,account_id,quantity,amount,unit_price,status,customer,email,country,note,created_at,"
    "updated_at,_op,commit_lsn,lsn\n";

// One CSV line; a delete has only its key and the change columns.
char* PutCsvLine(char* p, const Row& row, char op, int64_t lsn) {
  p = PutInt(p, row.id);
  if (op == 'd') {
    p = Put(p, ",,,,,,,,,,,,d,");
  } else {
    *p++ = ',';
    p = PutInt(p, row.account_id);
    *p++ = ',';
    p = PutInt(p, row.quantity);
    *p++ = ',';
    p = PutDecimal(p, row.amount_cents, 2, 100);
    *p++ = ',';
    p = PutDecimal(p, row.unit_price_e4, 4, 10'000);
    *p++ = ',';
    p = Put(p, row.status);
    *p++ = ',';
    p = PutCsvText(p, row.customer.view());
    *p++ = ',';
    p = PutCsvText(p, row.email.view());
    *p++ = ',';
    p = Put(p, row.country);
    *p++ = ',';
    if (!row.note_null) p = PutCsvText(p, row.note.view());
    *p++ = ',';
    p = PutTimestamp(p, row.created_us);
    *p++ = ',';
    p = PutTimestamp(p, row.updated_us);
    *p++ = ',';
    *p++ = op;
    *p++ = ',';
  }
  p = PutInt(p, lsn);
  *p++ = ',';
  p = PutInt(p, lsn);
  *p++ = '\n';
  return p;
}

// One Debezium PostgreSQL-connector message value (no schema part), one line.
char* PutDebeziumLine(char* p, const Row& row, const Event& e) {
  if (e.op == 'd') {
    p = Put(p, R"({"before":{"id":)");
    p = PutInt(p, row.id);
    p = Put(p,
            R"(,"account_id":null,"quantity":null,"amount":null,"unit_price":null,"status":null,)"
            R"("customer":null,"email":null,"country":null,"note":null,"created_at":null,)"
            R"("updated_at":null},"after":null)");
  } else {
    p = Put(p, R"({"before":null,"after":{"id":)");
    p = PutInt(p, row.id);
    p = Put(p, R"(,"account_id":)");
    p = PutInt(p, row.account_id);
    p = Put(p, R"(,"quantity":)");
    p = PutInt(p, row.quantity);
    p = Put(p, R"(,"amount":")");
    p = PutDecimal(p, row.amount_cents, 2, 100);
    p = Put(p, R"(","unit_price":")");
    p = PutDecimal(p, row.unit_price_e4, 4, 10'000);
    p = Put(p, R"(","status":)");
    p = PutJsonText(p, row.status);
    p = Put(p, R"(,"customer":)");
    p = PutJsonText(p, row.customer.view());
    p = Put(p, R"(,"email":)");
    p = PutJsonText(p, row.email.view());
    p = Put(p, R"(,"country":)");
    p = PutJsonText(p, row.country);
    p = Put(p, R"(,"note":)");
    p = row.note_null ? Put(p, "null") : PutJsonText(p, row.note.view());
    p = Put(p, R"(,"created_at":)");
    p = PutInt(p, row.created_us);
    p = Put(p, R"(,"updated_at":)");
    p = PutInt(p, row.updated_us);
    *p++ = '}';
  }
  p = Put(p, R"(,"source":{"version":"2.5.4.Final","connector":"postgresql","name":"bench",)"
             R"("ts_ms":)");
  p = PutInt(p, row.commit_ms);
  p = Put(p, R"(,"snapshot":"false","db":"shop","sequence":"[\")");
  p = PutInt(p, e.lsn);
  p = Put(p, R"(\",\")");
  p = PutInt(p, e.lsn);
  p = Put(p, R"(\"]","schema":"public","table":"orders","txId":)");
  p = PutInt(p, e.tx);
  p = Put(p, R"(,"lsn":)");
  p = PutInt(p, e.lsn);
  p = Put(p, R"(,"xmin":null},"op":")");
  *p++ = e.op;
  p = Put(p, R"(","ts_ms":)");
  p = PutInt(p, row.emitted_ms);
  p = Put(p, ",\"transaction\":null}\n");
  return p;
}

// ---------------------------------------------------------------------------------------------
// Output files: lines are formatted straight into a large buffer written in big chunks.

class Sink {
 public:
  static constexpr size_t kCapacity = size_t{8} << 20;
  static constexpr size_t kLineRoom = 4096;  // more than any line needs

  Sink() : buffer_(kCapacity) {}
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    if (file_ != nullptr) std::fclose(file_);
  }

  Status Open(const fs::path& path) {
    path_ = path.string();
    file_ = std::fopen(path_.c_str(), "wb");
    if (file_ == nullptr) return Status::Fail("cannot create " + path_ + ": " + Reason(errno));
    return Status::Ok();
  }

  /// Room for one line; Commit(end) keeps what was written up to `end`.
  char* Line() {
    if (kCapacity - used_ < kLineRoom) Drain();
    return buffer_.data() + used_;
  }
  void Commit(char* end) { used_ = static_cast<size_t>(end - buffer_.data()); }
  bool failed() const { return !error_.empty(); }
  uint64_t bytes() const { return bytes_ + used_; }

  Status Close() {
    Drain();
    if (file_ != nullptr && std::fclose(file_) != 0 && error_.empty()) {
      error_ = "cannot write " + path_ + ": " + Reason(errno);
    }
    file_ = nullptr;
    return error_.empty() ? Status::Ok() : Status::Fail(error_);
  }

 private:
  static std::string Reason(int err) { return std::strerror(err); }

  void Drain() {
    if (used_ > 0 && error_.empty() && std::fwrite(buffer_.data(), 1, used_, file_) != used_) {
      error_ = "cannot write " + path_ + ": " + Reason(errno);
    }
    bytes_ += used_;
    used_ = 0;
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t bytes_ = 0;
  std::string error_;
};

// ---------------------------------------------------------------------------------------------
// The workload folder.

constexpr std::string_view kCdclakeSchema =
    "id BIGINT, account_id BIGINT, quantity INT, amount DECIMAL(12,2), "
    "unit_price DECIMAL(10,4), status STRING, customer STRING, email STRING, country STRING, "
    "note STRING, created_at TIMESTAMP, updated_at TIMESTAMP";

struct Totals {
  uint64_t load_bytes = 0;
  double load_seconds = 0;
  double load_cpu_seconds = 0;
  uint64_t csv_bytes = 0;  // batch CSV files
  uint64_t debezium_bytes = 0;
  int64_t events = 0;  // lines over all batch files
  std::vector<BatchCounts> batches;
};

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Processor time of this process (steadier than wall time on a shared machine, and it leaves
// out waiting for the disk).
double CpuSeconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

Status WriteLoad(const Args& a, Totals* totals) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = CpuSeconds();
  Sink sink;
  WORKLOAD_RETURN_IF_ERROR(sink.Open(fs::path(a.out) / "load.csv"));
  sink.Commit(Put(sink.Line(), kCsvHeader));
  for (int64_t id = 0; id < a.keys && !sink.failed(); ++id) {
    sink.Commit(PutCsvLine(sink.Line(), MakeRow(a.seed, a.keys, id, kLoadLsn), 'c', kLoadLsn));
  }
  WORKLOAD_RETURN_IF_ERROR(sink.Close());
  totals->load_bytes = sink.bytes();
  totals->load_seconds = SecondsSince(start);
  totals->load_cpu_seconds = CpuSeconds() - cpu_start;
  return Status::Ok();
}

std::string BatchName(int64_t batch, std::string_view extension) {
  char name[32];
  std::snprintf(name, sizeof(name), "batch-%04lld.%s", static_cast<long long>(batch),
                std::string(extension).c_str());
  return name;
}

Status WriteBatch(const Args& a, int64_t batch, const std::vector<Delivery>& deliveries,
                  Totals* totals) {
  Sink csv, json;
  if (a.csv) WORKLOAD_RETURN_IF_ERROR(csv.Open(fs::path(a.out) / BatchName(batch, "csv")));
  if (a.debezium) WORKLOAD_RETURN_IF_ERROR(json.Open(fs::path(a.out) / BatchName(batch, "json")));
  if (a.csv) csv.Commit(Put(csv.Line(), kCsvHeader));
  BatchCounts counts;
  for (const Delivery& d : deliveries) {
    const Row row = MakeRow(a.seed, a.keys, d.event.id, d.event.lsn);
    if (a.csv) csv.Commit(PutCsvLine(csv.Line(), row, d.event.op, d.event.lsn));
    if (a.debezium) json.Commit(PutDebeziumLine(json.Line(), row, d.event));
    if (csv.failed() || json.failed()) break;
    ++counts.events;
    counts.fresh += d.kind == Delivery::Kind::kFresh;
    counts.late += d.kind == Delivery::Kind::kLate;
    counts.duplicates += d.kind == Delivery::Kind::kDuplicate;
    counts.inserts += d.event.op == 'c';
    counts.updates += d.event.op == 'u';
    counts.deletes += d.event.op == 'd';
  }
  if (a.csv) WORKLOAD_RETURN_IF_ERROR(csv.Close());
  if (a.debezium) WORKLOAD_RETURN_IF_ERROR(json.Close());
  totals->csv_bytes += csv.bytes();
  totals->debezium_bytes += json.bytes();
  totals->events += counts.events;
  totals->batches.push_back(counts);
  return Status::Ok();
}

void AppendNumber(std::string* s, double v) {
  char text[32];
  s->append(text, std::to_chars(text, text + sizeof(text), v).ptr);
}

std::string WorkloadJson(const Args& a, const Totals& totals) {
  const double mix_total = a.mix[0] + a.mix[1] + a.mix[2];
  std::string s = "{\"generator\":\"cdc_workload\",\"seed\":" + std::to_string(a.seed) +
                  ",\"keys_initial\":" + std::to_string(a.keys) +
                  ",\"batch_events\":" + std::to_string(a.batch) +
                  ",\"batches\":" + std::to_string(a.batches) + ",\"mix\":{\"update\":";
  AppendNumber(&s, a.mix[0] / mix_total);
  s += ",\"insert\":";
  AppendNumber(&s, a.mix[1] / mix_total);
  s += ",\"delete\":";
  AppendNumber(&s, a.mix[2] / mix_total);
  s += "},\"late\":";
  AppendNumber(&s, a.late);
  s += ",\"duplicate\":";
  AppendNumber(&s, a.duplicate);
  s += ",\"zipf\":";
  AppendNumber(&s, a.zipf);
  s += ",\n\"columns\":[";
  std::string_view schema = kCdclakeSchema;
  for (bool first = true; !schema.empty(); first = false) {
    const size_t comma = schema.find(", ");
    std::string_view column = schema.substr(0, comma);
    schema.remove_prefix(comma == std::string_view::npos ? schema.size() : comma + 2);
    const size_t space = column.find(' ');
    s += first ? "" : ",";
    s += "{\"name\":\"" + std::string(column.substr(0, space)) + "\",\"sql\":\"" +
         std::string(column.substr(space + 1)) + "\"}";
  }
  s += "],\n\"cdclake_schema\":\"" + std::string(kCdclakeSchema) + "\",\n";
  s += "\"load\":{\"csv\":\"load.csv\",\"rows\":" + std::to_string(a.keys) + "},\n";
  s += "\"batch_files\":[";
  for (size_t i = 0; i < totals.batches.size(); ++i) {
    const BatchCounts& c = totals.batches[i];
    const auto batch = static_cast<int64_t>(i + 1);
    s += i == 0 ? "\n" : ",\n";
    s += "{\"batch\":" + std::to_string(batch) +
         ",\"csv\":" + (a.csv ? "\"" + BatchName(batch, "csv") + "\"" : "null") +
         ",\"debezium\":" + (a.debezium ? "\"" + BatchName(batch, "json") + "\"" : "null") +
         ",\"events\":" + std::to_string(c.events) + ",\"fresh\":" + std::to_string(c.fresh) +
         ",\"late\":" + std::to_string(c.late) + ",\"duplicates\":" + std::to_string(c.duplicates) +
         ",\"inserts\":" + std::to_string(c.inserts) + ",\"updates\":" + std::to_string(c.updates) +
         ",\"deletes\":" + std::to_string(c.deletes) + "}";
  }
  s += "]}\n";
  return s;
}

// workload.json goes last, through a temporary name, so its presence means a complete folder.
Status WriteWorkloadJson(const Args& a, const Totals& totals) {
  const fs::path final_path = fs::path(a.out) / "workload.json";
  const fs::path temp_path = fs::path(a.out) / "workload.json.tmp";
  Sink sink;
  WORKLOAD_RETURN_IF_ERROR(sink.Open(temp_path));
  const std::string text = WorkloadJson(a, totals);
  for (size_t at = 0; at < text.size(); at += Sink::kLineRoom) {
    const std::string_view part = std::string_view(text).substr(at, Sink::kLineRoom);
    sink.Commit(Put(sink.Line(), part));
  }
  WORKLOAD_RETURN_IF_ERROR(sink.Close());
  std::error_code ec;
  fs::rename(temp_path, final_path, ec);
  if (ec) return Status::Fail("cannot rename to " + final_path.string() + ": " + ec.message());
  return Status::Ok();
}

Status Generate(const Args& a, Totals* totals) {
  std::error_code ec;
  fs::create_directories(a.out, ec);
  if (ec) return Status::Fail("cannot create " + a.out + ": " + ec.message());
  fs::remove(fs::path(a.out) / "workload.json", ec);  // incomplete until rewritten at the end
  if (ec) return Status::Fail("cannot remove the old workload.json: " + ec.message());
  if (fs::exists(fs::path(a.out) / BatchName(a.batches + 1, "csv")) ||
      fs::exists(fs::path(a.out) / BatchName(a.batches + 1, "json"))) {
    std::fprintf(stderr, "cdc_workload: note: %s holds batch files beyond batch %lld\n",
                 a.out.c_str(), static_cast<long long>(a.batches));
  }
  WORKLOAD_RETURN_IF_ERROR(WriteLoad(a, totals));
  EventStream stream(a);
  Arrivals arrivals(a);
  std::vector<Event> fresh;
  for (int64_t b = 1; b <= a.batches; ++b) {
    fresh.clear();
    for (int64_t i = 0; i < a.batch; ++i) fresh.push_back(stream.Next());
    WORKLOAD_RETURN_IF_ERROR(WriteBatch(a, b, arrivals.Order(fresh, b == a.batches), totals));
  }
  return WriteWorkloadJson(a, *totals);
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  Status parsed = ParseArgs(argc, argv, &args);
  if (args.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!parsed.ok()) {
    std::fprintf(stderr, "cdc_workload: %s\n%s", parsed.message().c_str(), kUsage);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  Totals totals;
  Status generated = Generate(args, &totals);
  if (!generated.ok()) {
    std::fprintf(stderr, "cdc_workload: %s\n", generated.message().c_str());
    return 1;
  }
  const double seconds = SecondsSince(start);
  const uint64_t bytes = totals.load_bytes + totals.csv_bytes + totals.debezium_bytes;
  const double load_mb = static_cast<double>(totals.load_bytes) / 1e6;
  std::fprintf(stderr,
               "cdc_workload: load %lld rows, %.1f MB in %.2f s (%.0f MB/s, %.0f rows/s; "
               "cpu %.2f s); %lld events in %lld batches (csv %.1f MB, debezium %.1f MB); "
               "%llu bytes in %.2f s (cpu %.2f s)\n",
               static_cast<long long>(args.keys), load_mb, totals.load_seconds,
               load_mb / totals.load_seconds, static_cast<double>(args.keys) / totals.load_seconds,
               totals.load_cpu_seconds, static_cast<long long>(totals.events),
               static_cast<long long>(args.batches), static_cast<double>(totals.csv_bytes) / 1e6,
               static_cast<double>(totals.debezium_bytes) / 1e6,
               static_cast<unsigned long long>(bytes), seconds, CpuSeconds());
  return 0;
}
