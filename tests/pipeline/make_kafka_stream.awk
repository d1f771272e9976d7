# Writes a deterministic Debezium (PostgreSQL connector, JSON without schema) change stream of a
# `customers` table as Kafka messages for kafka_mock_cluster's `produce` command: one file per
# partition (DIR/part-P.txt, lines KEY<TAB>VALUE[<TAB>header=value]), each message in the
# partition of its key (id % PARTS), in LSN order within a partition. Creates, updates and
# deletes (each followed by its tombstone) over KEYS keys; some events produced twice (Debezium's
# at-least-once); primary-key changes (delete with __debezium.newkey, tombstone, create with
# __debezium.oldkey); a truncate every TRUNCATE_EVERY events (no key, partition 0). The table
# those events leave, id,name (unsorted), goes to DIR/model.unsorted; the table they leave when
# truncates are not applied (SCD2 flows cannot apply them) to DIR/model_scd2.unsorted.
# Usage: awk -v DIR=d -v EVENTS=3000 -v KEYS=200 -v PARTS=3 -v SEED=7 -v TRUNCATE_EVERY=1000 \
#          -f make_kafka_stream.awk
function source(lsn) {
  return sprintf("{\"version\":\"2.7.3.Final\",\"connector\":\"postgresql\",\"name\":\"shop\",\"ts_ms\":%.0f,\"snapshot\":\"false\",\"db\":\"shop\",\"schema\":\"public\",\"table\":\"customers\",\"txId\":%d,\"lsn\":%d}", 1700000000000 + lsn, 500 + lsn, lsn)
}
function row(id, name) { return sprintf("{\"id\":%d,\"name\":\"%s\"}", id, name) }
function key(id) { return sprintf("{\"id\":%d}", id) }
function put(p, line) { print line > (DIR "/part-" p ".txt") }
function change(id, op, name, lsn, header,    value) {
  if (op == "d") delete scd2[id]; else scd2[id] = name
  if (op == "d") {
    value = sprintf("{\"before\":%s,\"after\":null,\"source\":%s,\"op\":\"d\",\"ts_ms\":%.0f}", row(id, name), source(lsn), 1700000000000 + lsn)
  } else {
    value = sprintf("{\"before\":null,\"after\":%s,\"source\":%s,\"op\":\"%s\",\"ts_ms\":%.0f}", row(id, name), source(lsn), op, 1700000000000 + lsn)
  }
  put(id % PARTS, key(id) "\t" value header)
  if (rand() < 0.03) put(id % PARTS, key(id) "\t" value header)  # produced twice
  if (op == "d") put(id % PARTS, key(id) "\t\\N")                  # its tombstone
}
BEGIN {
  srand(SEED)
  lsn = 1000
  next_id = KEYS + 1
  for (e = 1; e <= EVENTS; e++) {
    lsn += 1 + int(rand() * 3)
    if (e % TRUNCATE_EVERY == 0 && e < EVENTS) {
      put(0, sprintf("\t{\"before\":null,\"after\":null,\"source\":%s,\"op\":\"t\",\"ts_ms\":%.0f}", source(lsn), 1700000000000 + lsn))
      for (id in alive) delete alive[id]
      continue
    }
    id = 1 + int(rand() * KEYS)
    r = rand()
    if (!(id in alive)) {
      alive[id] = "c" lsn
      change(id, "c", alive[id], lsn, "")
    } else if (r < 0.12) {
      change(id, "d", alive[id], lsn, "")
      delete alive[id]
    } else if (r < 0.14) {
      # The key changes: id becomes a new id, in one transaction (one LSN each, in order).
      new_id = next_id++
      change(id, "d", alive[id], lsn, "\t__debezium.newkey=" key(new_id))
      lsn++
      alive[new_id] = alive[id]
      delete alive[id]
      change(new_id, "c", alive[new_id], lsn, "\t__debezium.oldkey=" key(id))
    } else {
      alive[id] = "u" lsn
      change(id, "u", alive[id], lsn, "")
    }
  }
  for (p = 0; p < PARTS; p++) printf "" >> (DIR "/part-" p ".txt")
  printf "" > (DIR "/model.unsorted")
  for (id in alive) print id "," alive[id] > (DIR "/model.unsorted")
  close(DIR "/model.unsorted")
  printf "" > (DIR "/model_scd2.unsorted")
  for (id in scd2) print id "," scd2[id] > (DIR "/model_scd2.unsorted")
  close(DIR "/model_scd2.unsorted")
}
