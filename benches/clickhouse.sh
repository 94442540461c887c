# Sourced by the bench scripts: `start_clickhouse DIR PORT` starts a clickhouse-server from DIR
# (created) with its HTTP interface on 127.0.0.1:PORT (native protocol on PORT + 1), sets CHPID
# and CLICKHOUSE_URL, and waits (up to 30 s) until it answers `/ping`. The caller stops it
# (kill $CHPID).
start_clickhouse() {
  local dir=$1 port=$2
  mkdir -p "$dir"
  cat > "$dir/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$port</http_port>
  <tcp_port>$((port + 1))</tcp_port>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>16777216</mark_cache_size>
</yandex>
EOF
  cat > "$dir/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOF
  clickhouse-server --config-file="$dir/config.xml" > "$dir/log" 2>&1 &
  CHPID=$!
  CLICKHOUSE_URL="http://127.0.0.1:$port"
  for _ in $(seq 300); do curl -sf "$CLICKHOUSE_URL/ping" > /dev/null && break; sleep 0.1; done
}
