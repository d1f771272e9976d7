# pipeline_make_events.awk: writes a deterministic Debezium change stream (PostgreSQL connector,
# JSON without the schema part, decimals in string mode) of a 12-column `orders` table for the
# pipeline benchmark, as FILES files of PER_FILE events each, named PREFIX-000001.json ... under
# DIR. Events pick keys uniformly among KEYS ids: a key's first event and the first after its
# delete are creates, then 6% deletes and the rest updates (about three in four events are
# updates when each key sees ~5 events). LSNs rise through the whole stream.
# Usage: mawk -v DIR=d -v FILES=100 -v PER_FILE=10000 -v KEYS=200000 -v SEED=1 \
#             -v PREFIX=orders -f bench/pipeline_make_events.awk
# Prints "events creates updates deletes bytes" on stdout. The matching read_files schema is
#   id INT, account_id BIGINT, quantity INT, amount DECIMAL(12,2), customer STRING,
#   email STRING, status STRING, created_at TIMESTAMP_NTZ, ship_date DATE, paid BOOLEAN,
#   revision BIGINT, note STRING
function row(id, rev,    cents, q) {
  cents = int(rand() * 5000000) - 200000
  q = int(rand() * 400)
  return sprintf("{\"id\":%d,\"account_id\":%.0f,\"quantity\":%d,\"amount\":\"%s%d.%02d\"," \
                 "\"customer\":\"customer %06d\",\"email\":\"buyer%d@example.org\"," \
                 "\"status\":\"%s\",\"created_at\":%.0f,\"ship_date\":%d,\"paid\":%s," \
                 "\"revision\":%d,\"note\":%s}",
                 id, 8000000000 + id % 40000, q, (cents < 0 ? "-" : ""),
                 int((cents < 0 ? -cents : cents) / 100), (cents < 0 ? -cents : cents) % 100,
                 id % 750000, id, status[1 + int(rand() * 6)],
                 1690000000000000 + id * 999983 + rev * 1000, 19000 + (id + rev) % 900,
                 (rand() < 0.7 ? "true" : "false"), rev,
                 (rand() < 0.2 ? "\"ring the bell twice, parcel box round the back\"" : "null"))
}
function key_only(id) {
  return sprintf("{\"id\":%d,\"account_id\":null,\"quantity\":null,\"amount\":null," \
                 "\"customer\":null,\"email\":null,\"status\":null,\"created_at\":null," \
                 "\"ship_date\":null,\"paid\":null,\"revision\":null,\"note\":null}", id)
}
BEGIN {
  if (PREFIX == "") PREFIX = "orders"
  split("pending paid packed shipped delivered refunded", status, " ")
  srand(SEED + 0)
  lsn = 36000000
  tx = 90000
  n = 0
  for (f = 1; f <= FILES; f++) {
    out = sprintf("%s/%s-%06d.json", DIR, PREFIX, f)
    for (e = 1; e <= PER_FILE; e++) {
      id = 1 + int(rand() * KEYS)
      lsn += 48 + int(rand() * 160)
      if (e % 3 == 1) tx++
      ts = 1700000000000 + int(lsn / 1000)
      if (!(id in alive)) { op = "c"; alive[id] = 1; creates++ }
      else if (rand() < 0.06) { op = "d"; delete alive[id]; deletes++ }
      else { op = "u"; updates++ }
      rev[id]++
      if (op == "d") img = "\"before\":" key_only(id) ",\"after\":null"
      else img = "\"before\":null,\"after\":" row(id, rev[id])
      line = sprintf("{%s,\"source\":{\"version\":\"2.7.3.Final\",\"connector\":\"postgresql\"," \
                     "\"name\":\"shop\",\"ts_ms\":%.0f,\"snapshot\":\"false\",\"db\":\"shop\"," \
                     "\"sequence\":\"[\\\"%.0f\\\",\\\"%.0f\\\"]\",\"schema\":\"public\"," \
                     "\"table\":\"orders\",\"txId\":%.0f,\"lsn\":%.0f,\"xmin\":null}," \
                     "\"op\":\"%s\",\"ts_ms\":%.0f,\"transaction\":null}",
                     img, ts, lsn - 24, lsn, tx, lsn, op, ts + 3)
      print line > out
      bytes += length(line) + 1
      n++
    }
    close(out)
  }
  printf "%d %d %d %d %d\n", n, creates, updates, deletes, bytes
}
