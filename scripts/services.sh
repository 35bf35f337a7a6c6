#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis servers for the tests, on 127.0.0.1 and free ports, removed when the calling
# script exits. Source it: it exports RESTSMITH_TEST_PG_URL and RESTSMITH_TEST_REDIS_URL.
# Debian's postgresql and redis-server packages are installed when missing (as root, with apt-get). PostgreSQL
# refuses to run as root, so its cluster runs as the `postgres` user the package creates.

# the newest server's binaries (the client package alone has no initdb)
pg_bin() { ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 | xargs -r dirname; }
free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

if [ -z "$(pg_bin)" ] || ! command -v redis-server >/dev/null; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "PostgreSQL and Redis are needed for the PostgreSQL suite: install Debian's postgresql and redis-server" >&2
    exit 1
  fi
  echo "installing Debian's postgresql and redis-server…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql redis-server >/dev/null
  # the packages may start a default cluster and server of their own: the tests use theirs, so stop those
  command -v pg_ctlcluster >/dev/null && for cluster in /etc/postgresql/*/main; do
    [ -d "$cluster" ] && pg_ctlcluster "$(basename "$(dirname "$cluster")")" main stop >/dev/null 2>&1 || true
  done
  redis-cli shutdown nosave >/dev/null 2>&1 || true
fi

RESTSMITH_SERVICES_DIR="$(mktemp -d /tmp/restsmith-services.XXXXXX)"
as_postgres=(env)
if [ "$(id -u)" = 0 ]; then
  chown postgres "$RESTSMITH_SERVICES_DIR"
  as_postgres=(runuser -u postgres --)
fi

stop_services() {
  "${as_postgres[@]}" "$(pg_bin)/pg_ctl" -D "$RESTSMITH_SERVICES_DIR/pg" -m fast stop >/dev/null 2>&1 || true
  [ -n "${redis_port:-}" ] && redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  rm -rf "$RESTSMITH_SERVICES_DIR"
}
trap stop_services EXIT

pg_port="$(free_port)"
"${as_postgres[@]}" "$(pg_bin)/initdb" -D "$RESTSMITH_SERVICES_DIR/pg" -U postgres --auth=trust -E UTF8 >/dev/null
"${as_postgres[@]}" "$(pg_bin)/pg_ctl" -D "$RESTSMITH_SERVICES_DIR/pg" -l "$RESTSMITH_SERVICES_DIR/pg.log" -w \
  -o "-p $pg_port -k $RESTSMITH_SERVICES_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400" start >/dev/null
export RESTSMITH_TEST_PG_URL="postgres://postgres@127.0.0.1:$pg_port/postgres"

redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --pidfile "$RESTSMITH_SERVICES_DIR/redis.pid" --logfile "$RESTSMITH_SERVICES_DIR/redis.log" >/dev/null
export RESTSMITH_TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
echo "PostgreSQL on 127.0.0.1:$pg_port, Redis on 127.0.0.1:$redis_port (throwaway, stopped on exit)"
