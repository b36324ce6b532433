# Sourced by the PostgreSQL benchmarks: starts a cluster of Debian's
# PostgreSQL server binaries in "$out/pg" on port ${PG_PORT:-55432} (the
# server's defaults but for max_wal_size = 4GB, a bulk load's checkpoints,
# and shared_buffers = ${PG_SHARED_BUFFERS:-2GB}: the default 128MB is a
# toy's, and a database server would give it a quarter of its memory),
# stops it when the script exits, and defines `psql_ SQL` and `url DB`.
bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
port=${PG_PORT:-55432}
as_pg "$bin/initdb" -D "$out/pg" -U postgres -A trust -E UTF8 --locale=C >/dev/null
cat >>"$out/pg/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$out/pg'
port = $port
max_wal_size = 4GB
shared_buffers = ${PG_SHARED_BUFFERS:-2GB}
CONF
as_pg "$bin/pg_ctl" -D "$out/pg" -l "$out/pg.log" -w start >/dev/null
cleanup_cluster() { as_pg "$bin/pg_ctl" -D "$out/pg" -m fast stop >/dev/null; }
trap cleanup_cluster EXIT
psql_() { psql -h 127.0.0.1 -p "$port" -U postgres -Atc "$1"; }
url() { echo "postgres://postgres@127.0.0.1:$port/$1"; }
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB; PostgreSQL $("$bin/postgres" --version | awk '{print $3}')"
