#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests: `start DIR` prints its DSN, `stop DIR` ends it.
#
# The data and socket directories live under DIR (a temporary folder), the server listens on
# a free port of 127.0.0.1 only, and no system service is involved. The server refuses to run
# as root, so as root it runs as the `postgres` system user (created when missing).
set -euo pipefail

action=${1:?usage: postgres.sh start|stop DIR}
dir=${2:?usage: postgres.sh start|stop DIR}

find_bin() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$found" ] || [ ! -x "$found/initdb" ]; then
    echo "postgres.sh: installing the PostgreSQL server (postgresql-15)" >&2
    # No default cluster and so no system service: the tests start their own.
    mkdir -p /etc/postgresql-common
    grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf \
      || echo 'create_main_cluster = false' >>/etc/postgresql-common/createcluster.conf
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >&2
    found=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  echo "$found"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case "$action" in
  start)
    bin=$(find_bin)
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
    mkdir -p "$dir/data" "$dir/socket"
    [ "$(id -u)" = 0 ] && chown -R postgres "$dir" && chmod 755 "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(free_port)
    # Small and quick: the tests' cluster needs no durability beyond the process kills it sees.
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir/socket -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=32MB -c fsync=on" \
      start >&2 || { cat "$dir/server.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    bin=$(find_bin)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    fi
    ;;
  *)
    echo "usage: postgres.sh start|stop DIR" >&2; exit 2 ;;
esac
