# ClickHouse servers for the fleet tests (sourced after test-lib.sh and
# test_tmpdir): each in its own directory under $tmp, on free loopback
# ports, with our own users file, stopped at exit by ch_stop_all (the
# caller's test_cleanup_hook calls it).
#
#   ch_require                    skip (77) unless clickhouse-server runs here
#   ch_start NAME [CLUSTER]       one server; with CLUSTER, a config naming
#                                 the shards of ch_cluster_plan
#   ch_cluster NAME               a two-shard cluster: servers NAME1, NAME2
#                                 (remote_servers in each config)
#   ch_url NAME                   http://127.0.0.1:PORT of a server
#   ch_query NAME USER SQL        SQL over HTTP as USER (ship, read), body out
#   ch_kill NAME                  SIGKILL (the data stays), ch_restart NAME
#   ch_stop NAME, ch_stop_all
#
# Users (users.xml written here): ship (password $CH_SHIP_PW; may create,
# insert and read in its databases), read (password $CH_READ_PW,
# readonly=1), and default with a random password nobody is told: the
# package's password-less default is not there. Credentials files for the
# tools: $tmp/ch/ship.cred, $tmp/ch/read.cred (mode 0600).

CH_SERVER=${CH_SERVER:-$(command -v clickhouse-server || true)}
CH_DIR=
CH_SHIP_PW=ship-$$-secret
CH_READ_PW=read-$$-secret

ch_require() {
	[ -n "$CH_SERVER" ] && [ -x "$CH_SERVER" ] ||
		skip "clickhouse-server is not installed (Debian: clickhouse-server)"
	command -v curl >/dev/null || skip "curl is not installed"
	command -v python3 >/dev/null || skip "python3 is not installed"
	CH_DIR=$tmp/ch
	mkdir -p "$CH_DIR"
	printf 'user = ship\npassword = %s\n' "$CH_SHIP_PW" >"$CH_DIR/ship.cred"
	printf 'user = read\npassword = %s\n' "$CH_READ_PW" >"$CH_DIR/read.cred"
	chmod 600 "$CH_DIR/ship.cred" "$CH_DIR/read.cred"
}

# ch_free_ports N: N free loopback tcp ports, one a line
ch_free_ports() {
	python3 -c '
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
' "$1"
}

ch_sha256() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }

ch_write_users() {
	cat >"$1" <<EOF
<yandex>
  <profiles>
    <default><max_memory_usage>2000000000</max_memory_usage></default>
    <readonly><readonly>1</readonly></readonly>
  </profiles>
  <users>
    <default>
      <password_sha256_hex>$(ch_sha256 "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')")</password_sha256_hex>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>readonly</profile><quota>default</quota>
    </default>
    <ship>
      <password_sha256_hex>$(ch_sha256 "$CH_SHIP_PW")</password_sha256_hex>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile><quota>default</quota>
    </ship>
    <read>
      <password_sha256_hex>$(ch_sha256 "$CH_READ_PW")</password_sha256_hex>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>readonly</profile><quota>default</quota>
    </read>
  </users>
  <quotas>
    <default><interval><duration>3600</duration><queries>0</queries>
      <errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows>
      <execution_time>0</execution_time></interval></default>
  </quotas>
</yandex>
EOF
}

# ch_config NAME: write $CH_DIR/NAME/config.xml with ports from
# $CH_DIR/NAME/ports (http tcp interserver [https]) and the cluster's
# remote_servers when $CH_DIR/NAME/cluster exists ("CLUSTER tcp1 tcp2").
ch_config() {
	local d=$CH_DIR/$1 http tcp inter https cluster t1 t2
	read -r http tcp inter https <"$d/ports"
	{
		echo "<yandex>"
		echo "  <logger><level>information</level><log>$d/server.log</log>"
		echo "    <errorlog>$d/error.log</errorlog><console>0</console></logger>"
		echo "  <listen_host>127.0.0.1</listen_host>"
		echo "  <http_port>$http</http_port>"
		echo "  <tcp_port>$tcp</tcp_port>"
		echo "  <interserver_http_port>$inter</interserver_http_port>"
		if [ -f "$d/tls" ]; then
			echo "  <https_port>$https</https_port>"
			echo "  <openSSL><server>"
			echo "    <certificateFile>$d/server.crt</certificateFile>"
			echo "    <privateKeyFile>$d/server.key</privateKeyFile>"
			echo "    <verificationMode>none</verificationMode>"
			echo "    <loadDefaultCAFile>false</loadDefaultCAFile>"
			echo "    <cacheSessions>true</cacheSessions>"
			echo "    <disableProtocols>sslv2,sslv3</disableProtocols>"
			echo "    <preferServerCiphers>true</preferServerCiphers>"
			echo "  </server></openSSL>"
		fi
		echo "  <path>$d/data/</path><tmp_path>$d/tmp/</tmp_path>"
		echo "  <users_config>$d/users.xml</users_config>"
		echo "  <default_profile>default</default_profile>"
		echo "  <default_database>default</default_database>"
		echo "  <mark_cache_size>5368709</mark_cache_size>"
		echo "  <max_concurrent_queries>50</max_concurrent_queries>"
		if [ -f "$d/cluster" ]; then
			read -r cluster t1 t2 <"$d/cluster"
			echo "  <remote_servers><$cluster>"
			for t in $t1 $t2; do
				echo "    <shard><replica><host>127.0.0.1</host><port>$t</port>"
				echo "      <user>ship</user><password>$CH_SHIP_PW</password></replica></shard>"
			done
			echo "  </$cluster></remote_servers>"
		fi
		echo "</yandex>"
	} >"$d/config.xml"
}

# ch_launch NAME: start the configured server, wait until it answers
ch_launch() {
	local d=$CH_DIR/$1
	( cd "$d" && exec "$CH_SERVER" --config-file="$d/config.xml" \
		>"$d/stdout" 2>&1 ) &
	echo $! >"$d/pid"
	for _ in $(seq 300); do
		if ch_query "$1" ship 'SELECT 1' >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$(cat "$d/pid")" 2>/dev/null || break
		sleep 0.1
	done
	test_note "clickhouse-server $1 did not start:"
	tail -5 "$d/error.log" "$d/stdout" 2>/dev/null | sed 's/^/#   /'
	fail "clickhouse-server '$1' did not answer in 30 s"
}

ch_prepare() {
	local d=$CH_DIR/$1
	mkdir -p "$d/data" "$d/tmp"
	ch_free_ports 4 | tr '\n' ' ' >"$d/ports"
	echo >>"$d/ports"
	ch_write_users "$d/users.xml"
}

ch_start() {
	ch_prepare "$1"
	ch_config "$1"
	ch_launch "$1"
}

# ch_tls NAME: a self-signed certificate for 127.0.0.1 and an https_port;
# call between ch_prepare and ch_config (ch_start_tls does it all)
ch_start_tls() {
	local d=$CH_DIR/$1
	ch_prepare "$1"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$d/server.key" \
		-out "$d/server.crt" >/dev/null 2>&1 || fail "openssl req failed"
	touch "$d/tls"
	ch_config "$1"
	ch_launch "$1"
}

ch_cluster() {
	local c=$1 t1 t2
	ch_prepare "${c}1"
	ch_prepare "${c}2"
	t1=$(cut -d' ' -f2 "$CH_DIR/${c}1/ports")
	t2=$(cut -d' ' -f2 "$CH_DIR/${c}2/ports")
	echo "$c $t1 $t2" >"$CH_DIR/${c}1/cluster"
	echo "$c $t1 $t2" >"$CH_DIR/${c}2/cluster"
	ch_config "${c}1"
	ch_config "${c}2"
	ch_launch "${c}1"
	ch_launch "${c}2"
}

ch_port() { cut -d' ' -f"$2" "$CH_DIR/$1/ports"; }
ch_url() { echo "http://127.0.0.1:$(ch_port "$1" 1)"; }
ch_https_url() { echo "https://127.0.0.1:$(ch_port "$1" 4)"; }

ch_query() {
	local pw=$CH_SHIP_PW
	[ "$2" = read ] && pw=$CH_READ_PW
	curl -sS --fail-with-body --max-time 30 -u "$2:$pw" \
		--data-binary "$3" "$(ch_url "$1")/"
}

ch_kill() {
	local pid
	pid=$(cat "$CH_DIR/$1/pid" 2>/dev/null) || return 0
	kill -KILL "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	rm -f "$CH_DIR/$1/pid"
}

ch_restart() {
	ch_kill "$1"
	ch_launch "$1"
}

ch_stop() {
	local pid
	pid=$(cat "$CH_DIR/$1/pid" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
	rm -f "$CH_DIR/$1/pid"
}

ch_stop_all() {
	local p
	[ -n "$CH_DIR" ] && [ -d "$CH_DIR" ] || return 0
	for p in "$CH_DIR"/*/pid; do
		[ -f "$p" ] || continue
		ch_stop "$(basename "$(dirname "$p")")"
	done
}
