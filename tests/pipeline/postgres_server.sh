# A PostgreSQL server for one shell test or benchmark (sourced): `pg_server_start "-c k=v ..."`
# runs initdb into a new folder under /tmp and starts the server on a free loopback port with
# logical replication on (as the `postgres` user when run as root, since initdb refuses root),
# then sets pgbin, pgdir, port and conninfo. pg_server_restart MODE restarts it (pg_ctl -m
# MODE); pg_server_stop stops it and removes its folder. CDCLAKE_PG_BINDIR picks the binaries.
pgbin=${CDCLAKE_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
pgdir=""
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_server_start() {
  [ -x "$pgbin/initdb" ] || { echo "no PostgreSQL binaries (scripts/setup installs them)"; return 1; }
  pgdir=$(mktemp -d /tmp/cdclake-pg-XXXXXX)
  if [ "$(id -u)" = 0 ]; then chown postgres "$pgdir"; fi
  (cd / && as_pg "$pgbin/initdb" -D "$pgdir/data" -U cdclake --auth=trust -E UTF8 --no-locale \
    --no-sync) > "$pgdir/initdb.log" 2>&1 || { cat "$pgdir/initdb.log"; return 1; }
  # A port found free can be taken by another test before the server binds it: tried again.
  local attempt
  for attempt in 1 2 3; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    pg_options="-p $port -c listen_addresses=127.0.0.1 -k $pgdir -c wal_level=logical \
      -c max_wal_senders=10 -c max_replication_slots=10 $1"
    if (cd / && as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 \
      -o "$pg_options" start) > /dev/null; then
      conninfo="host=127.0.0.1 port=$port user=cdclake dbname=postgres"
      return 0
    fi
  done
  cat "$pgdir/server.log"
  return 1
}

pg_server_restart() {
  (cd / && as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 -m "$1" \
    -o "$pg_options" restart) > /dev/null
}

pg_server_stop() {
  [ -n "$pgdir" ] || return 0
  (cd / && as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate stop) > /dev/null 2>&1 || true
  rm -rf "$pgdir"
}
