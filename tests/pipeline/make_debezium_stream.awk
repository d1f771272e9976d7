# Writes a deterministic Debezium (PostgreSQL connector, JSON without schema) change stream of a
# small `accounts` table as FILES files of EVENTS events each, under DIR: creates, updates and
# deletes over KEYS keys with rising LSNs, then shuffled within each file, with some events
# repeated in a later file and one line that is not JSON (for the quarantine).
# Usage: awk -v DIR=d -v FILES=8 -v EVENTS=400 -v KEYS=60 -v SEED=7 -f make_debezium_stream.awk
function event(key, op, lsn, name, amount,    after, before, src) {
  src = sprintf("{\"version\":\"2.7.3.Final\",\"connector\":\"postgresql\",\"name\":\"bank\",\"ts_ms\":%.0f,\"snapshot\":\"false\",\"db\":\"bank\",\"sequence\":\"[\\\"%d\\\",\\\"%d\\\"]\",\"schema\":\"public\",\"table\":\"accounts\",\"txId\":%d,\"lsn\":%d,\"xmin\":null}", 1700000000000 + lsn, lsn, lsn, 500 + lsn, lsn)
  if (op == "d") {
    before = sprintf("{\"id\":%d,\"name\":null,\"amount\":null}", key)
    return sprintf("{\"before\":%s,\"after\":null,\"source\":%s,\"op\":\"d\",\"ts_ms\":%.0f,\"transaction\":null}", before, src, 1700000000000 + lsn)
  }
  after = sprintf("{\"id\":%d,\"name\":\"%s\",\"amount\":%d}", key, name, amount)
  return sprintf("{\"before\":null,\"after\":%s,\"source\":%s,\"op\":\"%s\",\"ts_ms\":%.0f,\"transaction\":null}", after, src, op, 1700000000000 + lsn)
}
BEGIN {
  srand(SEED)
  lsn = 1000
  for (f = 1; f <= FILES; f++) {
    n = 0
    for (e = 1; e <= EVENTS; e++) {
      key = 1 + int(rand() * KEYS)
      lsn += 1 + int(rand() * 5)
      r = rand()
      if (!(key in alive)) { op = "c"; alive[key] = 1 }
      else if (r < 0.12) { op = "d"; delete alive[key] }
      else op = "u"
      line[++n] = event(key, op, lsn, "n" key "_" lsn, int(rand() * 100000))
    }
    # Repeat a few events of the previous file (a connector restart replays them).
    for (d = 1; d <= 5 && f > 1; d++) line[++n] = prev[1 + int(rand() * prevn)]
    # Shuffle within the file: events of a key arrive out of order.
    for (i = n; i > 1; i--) { j = 1 + int(rand() * i); t = line[i]; line[i] = line[j]; line[j] = t }
    out = sprintf("%s/accounts-%04d.json", DIR, f)
    for (i = 1; i <= n; i++) {
      print line[i] > out
      if (f == 3 && i == 7) print "{\"before\":null,\"after\":{\"id\":1," > out
    }
    close(out)
    prevn = n
    for (i = 1; i <= n; i++) prev[i] = line[i]
  }
}
