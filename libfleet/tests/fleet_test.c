/* libfleet without a ClickHouse server: TabSeparated escaping and its
 * reader, names and the schema's SQL, URLs, the credentials file against
 * links, FIFOs, modes and owners, and the HTTP client against canned
 * servers (an error with escape bytes, a response too large, a port that
 * never answers, a closed port): what each message says and never says. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fleet_cred.h"
#include "fleet_http.h"
#include "fleet_schema.h"
#include "fleet_settings.h"
#include "fleet_spool.h"
#include "fleet_tsv.h"
#include "op_alloc.h"
#include "op_session_kv.h"
#include "op_session_settings.h"

static char const *dir;

static void test_tsv__escapes(void)
{
	struct fleet_buf b = { 0 };
	char const raw[] = "a\tb\nc\\d\re\0f'g";
	char const *arr[] = { "img\tsym", "it's", "back\\slash" };
	uint64_t offs[] = { 1, 18446744073709551615ull };

	fleet_tsv_string(&b, raw, sizeof(raw) - 1);
	check_str(b.p, "a\\tb\\nc\\\\d\\re\\0f'g", "a String field escapes tab, newline, backslash, CR and NUL, keeps the quote");
	fleet_buf_reset(&b);
	fleet_tsv_array(&b, arr, 3);
	check_str(b.p, "['img\\tsym','it\\'s','back\\\\slash']", "an Array(String) is a quoted literal");
	fleet_buf_reset(&b);
	fleet_tsv_array_u64(&b, offs, 2);
	check_str(b.p, "[1,18446744073709551615]", "an Array(UInt64)");
	fleet_buf_reset(&b);
	fleet_tsv_datetime(&b, 1795701600);
	fleet_tsv_tab(&b);
	fleet_tsv_date(&b, 1795701600);
	fleet_tsv_tab(&b);
	fleet_tsv_datetime(&b, -5);
	check_str(b.p, "1795701600\t2026-11-26\t0", "DateTime as epoch seconds, Date as the UTC day; before 1970 the epoch");
	fleet_buf_free(&b);
}

static void test_tsv__field_round_trip(void)
{
	struct fleet_buf b = { 0 }, f = { 0 };
	char const raw[] = "x\ty\\z\n\0\x1b[31m";
	char const *p, *end;

	fleet_tsv_string(&b, raw, sizeof(raw) - 1);
	fleet_tsv_tab(&b);
	fleet_tsv_str(&b, "second");
	fleet_tsv_eol(&b);
	p = b.p;
	end = b.p + b.len;
	check_int(fleet_tsv_field(&p, end, &f), 0, "the first field reads back");
	check_int((long long)f.len, (long long)(sizeof(raw) - 1), "with every byte");
	check_that(f.len == sizeof(raw) - 1 && !memcmp(f.p, raw, f.len));
	check_int(fleet_tsv_field(&p, end, &f), 0, "the second field reads back");
	check_str(f.p, "second", "the second field");
	check_that(p == end);
	p = "bad\\q\t";
	check_int(fleet_tsv_field(&p, p + 6, &f), -1, "an unknown escape is refused");
	p = "no end";
	check_int(fleet_tsv_field(&p, p + 6, &f), -1, "a field without its end is refused");
	fleet_buf_free(&b);
	fleet_buf_free(&f);
}

static void test_schema__sql(void)
{
	char err[512];
	char **v = fleet_schema_sql(NULL, NULL, err, sizeof(err));
	size_t n;

	check_assert(v, "schema for one server: %s", err);
	for (n = 0; v[n]; n++)
		;
	check_int((long long)n, 4, "one server: the database and three tables");
	check_str(v[0], "CREATE DATABASE IF NOT EXISTS oprofile", "the default database");
	check_contains(v[1], "oprofile.samples (day Date, host String", "samples starts with the common columns");
	check_contains(v[3], "PARTITION BY day ORDER BY (host, session_id)", "sessions' order");
	fleet_schema_free(v);
	v = fleet_schema_sql("prof", "two", err, sizeof(err));
	check_assert(v, "schema for a cluster: %s", err);
	for (n = 0; v[n]; n++)
		;
	check_int((long long)n, 7, "a cluster: the database, three local and three Distributed tables");
	check_contains(v[2], "CREATE TABLE IF NOT EXISTS prof.samples AS prof.samples_local ENGINE = Distributed(two, prof, samples_local, cityHash64(host))", "the Distributed samples table");
	fleet_schema_free(v);
	check_that(!fleet_schema_sql("a;DROP", NULL, err, sizeof(err)));
	check_contains(err, "database name 'a;DROP': use a letter", "a name that is not an identifier is refused");
	check_that(!fleet_schema_sql("ok", "1x", err, sizeof(err)));
	check_contains(err, "cluster name '1x': use a letter", "a name may not start with a digit");
	check_int(fleet_name_check("x", "\x1b]0;t\x07", err, sizeof(err)), -1, "escape bytes in a name");
	check_contains(err, "\\x1b]0;t\\x07", "are escaped in the message");
}

static void test_http__urls(void)
{
	char err[512];

	check_int(fleet_http_check_url("http://127.0.0.1:8123", err, sizeof(err)), 0, "http URL");
	check_int(fleet_http_check_url("https://ch.example/a/", err, sizeof(err)), 0, "https URL with a path");
	check_int(fleet_http_check_url("http://u:secret@h:1/", err, sizeof(err)), -1, "credentials in a URL");
	check_contains(err, "'http://...@h:1/'", "are left out of the message");
	check_contains(err, "use a credentials file", "are refused with the way to give them");
	check_int(fleet_http_check_url("ftp://h/", err, sizeof(err)), -1, "another scheme");
	check_int(fleet_http_check_url("http://h/?user=x", err, sizeof(err)), -1, "a query");
	check_int(fleet_http_check_url("http://h/\x1b[2J", err, sizeof(err)), -1, "control bytes");
	check_contains(err, "\\x1b[2J", "escaped in the message");
	check_int(fleet_http_check_url("http:///x", err, sizeof(err)), -1, "no host");
}

static char *write_cred(char const *name, char const *text, mode_t mode)
{
	char *p = op_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	check_assert(f, "create %s", p);
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
	return p;
}

static void test_cred__good_and_bad(void)
{
	struct fleet_cred c;
	char err[512];
	char *good = write_cred("good", "# fleet\nuser = ship\npassword =  pa ss=word \n", 0600);
	char *p;
	int fd;

	check_int(fleet_cred_read(good, &c, err, sizeof(err)), 0, "a good file");
	check_str(c.user, "ship", "its user");
	check_str(c.password, "pa ss=word ", "its password: the rest of the line");

	p = write_cred("open", "user = ship\npassword = hunter2\n", 0644);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "mode 0644 is refused");
	check_contains(err, "readable or writable by others", "saying why");
	check_that(!strstr(err, "hunter2"));
	free(p);

	p = op_xasprintf("%s/link", dir);
	check_that(symlink(good, p) == 0);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "a symbolic link is refused");
	check_contains(err, "is a symbolic link", "by name");
	free(p);

	p = op_xasprintf("%s/fifo", dir);
	check_that(mkfifo(p, 0600) == 0);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "a FIFO is refused without waiting for a writer");
	check_contains(err, "not a regular file", "as not a regular file");
	free(p);

	check_int(fleet_cred_read("/dev/null", &c, err, sizeof(err)), -1, "a device is refused");

	if (geteuid() == 0) {
		p = write_cred("theirs", "user = ship\npassword = x\n", 0600);
		check_that(chown(p, 65534, 65534) == 0);
		check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "a file of another user is refused");
		check_contains(err, "not owned by root", "saying so");
		free(p);
	} else {
		check_note("not root: the owner check is left out");
	}

	p = write_cred("nouser", "password = x\n", 0600);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "no user line");
	free(p);
	p = write_cred("baduser", "user = a b\n", 0600);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "a user name with a space");
	free(p);
	p = write_cred("unknown", "user = a\ntoken = z\n", 0600);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "an unknown key");
	check_contains(err, "line 2: unknown key", "with its line");
	free(p);
	p = write_cred("ctl", "user = a\npassword = x\x1by\n", 0600);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "a control byte in the password");
	check_that(!strstr(err, "x\x1by"));
	free(p);
	p = op_xasprintf("%s/huge", dir);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	check_that(fd >= 0 && ftruncate(fd, 1 << 20) == 0);
	close(fd);
	check_int(fleet_cred_read(p, &c, err, sizeof(err)), -1, "a file of 1 MiB");
	check_contains(err, "larger than 4 KiB", "is refused by size");
	free(p);
	check_int(fleet_cred_read("/nonexistent/cred", &c, err, sizeof(err)), -1, "a missing file");
	check_contains(err, "'/nonexistent/cred'", "named");
	free(good);
}

/* A loopback listener; its port. */
static int listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	check_assert(s >= 0 && !bind(s, (void *)&a, sizeof(a)) && !listen(s, 8) &&
		     !getsockname(s, (void *)&a, &len), "a loopback listener");
	*port = ntohs(a.sin_port);
	return s;
}

/* A child that answers every connection with reply (len bytes). */
static pid_t serve(int s, char const *reply, size_t len)
{
	pid_t pid = fork();

	check_assert(pid >= 0, "fork");
	if (pid == 0) {
		for (;;) {
			char buf[4096];
			int c = accept(s, NULL, NULL);

			if (c < 0)
				_exit(0);
			(void)!read(c, buf, sizeof(buf));
			(void)!write(c, reply, len);
			close(c);
		}
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_http__errors(void)
{
	struct fleet_http_opts o = { .connect_timeout_ms = 2000, .timeout_ms = 500,
				     .max_response = 4096 };
	char *cred = write_cred("http.cred", "user = ship\npassword = s3cr3t\n", 0600);
	struct fleet_buf out = { 0 };
	struct fleet_http h;
	char err[1024], url[64], *big;
	struct timespec t0, t1;
	int s, port;
	pid_t pid;
	char const bad[] = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 27\r\nConnection: close\r\n\r\nCode: 60 \x1b[31mred\x1b[0m table\n";

	s = listener(&port);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	pid = serve(s, bad, sizeof(bad) - 1);
	check_assert(!fleet_http_open(&h, url, cred, &o, err, sizeof(err)), "open: %s", err);
	check_int(fleet_http_post(&h, "SELECT 1", NULL, NULL, 0, &out, err, sizeof(err)), -1, "HTTP 500 is an error");
	check_contains(err, "HTTP 500: Code: 60 \\x1b[31mred\\x1b[0m table", "quoting the server's text, escaped");
	check_contains(err, url, "naming the URL");
	check_that(!strstr(err, "s3cr3t"));
	check_int(h.status, 500, "the status is kept");
	stop(pid);

	big = op_xmalloc(100000);
	memset(big, 'x', 100000);
	memcpy(big, "HTTP/1.1 200 OK\r\nContent-Length: 99950\r\nConnection: close\r\n\r\n", 61);
	pid = serve(s, big, 100000);
	check_int(fleet_http_get(&h, "SELECT 1", &out, err, sizeof(err)), -1, "a response over the bound");
	check_contains(err, "larger than 4096 bytes", "is cut and refused");
	check_that(out.len <= 4096);
	stop(pid);
	free(big);

	/* accepted by the kernel, never answered: the total timeout ends it */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	check_int(fleet_http_post(&h, "INSERT INTO t FORMAT TabSeparated", NULL, "1\n", 2, &out, err, sizeof(err)), -1, "a server that never answers");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	check(t1.tv_sec - t0.tv_sec < 5, "gives up after its timeout (%lds)", (long)(t1.tv_sec - t0.tv_sec));
	check_contains(err, "timed out", "saying it timed out");
	check_that(!strstr(err, "s3cr3t") && !strstr(err, "INSERT"));
	fleet_http_close(&h);
	close(s);

	/* a closed port */
	check_assert(!fleet_http_open(&h, url, NULL, &o, err, sizeof(err)), "open: %s", err);
	check_int(fleet_http_get(&h, "SELECT 1", &out, err, sizeof(err)), -1, "a closed port");
	check_contains(err, url, "names the URL");
	fleet_http_close(&h);
	check_int(fleet_http_open(&h, url, "/nonexistent", &o, err, sizeof(err)), -1, "a missing credentials file fails the open");
	fleet_buf_free(&out);
	free(cred);
}

/* conf as the settings file; op_settings_config_read's result. */
static int read_conf(char const *text, struct op_kv *kv)
{
	char *p = write_cred("oprofiled.conf", text, 0644);
	int ret;

	setenv(OP_CONFIG_ENV, p, 1);
	ret = op_settings_config_read(kv);
	free(p);
	return ret;
}

static void test_settings__file(void)
{
	struct fleet_settings s;
	struct op_kv kv;

	check_int(read_conf("fleet_url = https://ch.example:8443/\n"
			    "fleet_credentials = /etc/oprofile/fleet.cred\n"
			    "fleet_host = web1\n"
			    "fleet_label = zone=b\nfleet_label = team=web\nfleet_label = zone=b\n"
			    "fleet_spool_size = 10M\nfleet_cluster = prod\n", &kv), 0,
		  "a settings file with every fleet key");
	fleet_settings_get(&kv, &s);
	check_str(s.url, "https://ch.example:8443/", "fleet_url");
	check_str(s.host, "web1", "fleet_host");
	check_str(s.database, "oprofile", "the default database");
	check_str(s.cluster, "prod", "fleet_cluster");
	check_int((long long)s.nr_labels, 2, "fleet_label lines add up, each once");
	check_str(s.nr_labels == 2 ? s.labels[0] : NULL, "team=web", "sorted");
	check_int((long long)s.spool_size, 10 << 20, "fleet_spool_size");
	fleet_settings_free(&s);
	op_kv_free(&kv);

	check_int(read_conf("fleet_url = ftp://x/\n", &kv), -1, "a fleet_url that is not http is refused");
	check_int(read_conf("fleet_url = http://u:pw@x/\n", &kv), -1, "credentials in fleet_url are refused");
	check_int(read_conf("fleet_credentials = fleet.cred\n", &kv), -1, "a relative fleet_credentials");
	check_int(read_conf("fleet_label = nokey\n", &kv), -1, "a label without '='");
	check_int(read_conf("fleet_host = a/b\n", &kv), -1, "a host with '/'");
	check_int(read_conf("fleet_database = x-y\n", &kv), -1, "a database that is not an identifier");
	check_int(read_conf("fleet_spool_size = lots\n", &kv), -1, "a spool size that is not a size");
	check_int(read_conf("fleet_password = x\n", &kv), -1, "an unknown fleet key");
	unsetenv(OP_CONFIG_ENV);
}

struct drops {
	char said[8][64];
	int too_big[8];
	size_t n;
};

static void on_drop(void *arg, char const *id, uint64_t bytes, int too_big)
{
	struct drops *d = arg;

	(void)bytes;
	if (d->n < 8) {
		snprintf(d->said[d->n], sizeof(d->said[0]), "%s", id);
		d->too_big[d->n++] = too_big;
	}
}

/* An entry of rows of about size bytes for session id. */
static int add(struct fleet_spool *sp, char const *id, size_t size,
	       uint64_t *dropped, struct drops *d)
{
	struct fleet_buf rows = { 0 }, none = { 0 }, man = { 0 };
	char err[512];
	int ret;

	while (rows.len < size)
		fleet_buf_puts(&rows, "2026-11-26\tweb1\t[]\tweb1/x\t1\t2\tE\t1\t\timg\t\tsym\t16\t7\n");
	fleet_buf_printf(&man, "2026-11-26\tweb1\t[]\t%s\t1\t2\tE\t1\t1\t0\t7\n", id);
	ret = fleet_spool_add(sp, id, &rows, &none, &man, dropped, on_drop, d,
			      err, sizeof(err));
	if (ret)
		check_note("add: %s", err);
	fleet_buf_free(&rows);
	fleet_buf_free(&man);
	return ret;
}

static void test_spool__bound_and_order(void)
{
	char *sd = op_xasprintf("%s/spool", dir), *p, err[512];
	struct fleet_spool sp;
	struct fleet_spool_data d;
	struct drops drops = { 0 };
	uint64_t dropped = 0;
	FILE *f;

	check_assert(!fleet_spool_open(&sp, sd, 10000, err, sizeof(err)), "open: %s", err);
	check_int(add(&sp, "web1/a", 3000, &dropped, &drops), 0, "a first entry");
	check_int(add(&sp, "web1/b\x1b", 3000, &dropped, &drops), 0, "a second");
	check_int(add(&sp, "web1/c", 3000, &dropped, &drops), 0, "a third");
	check_int((long long)dropped, 0, "three fit in 10000 bytes");
	check_int(add(&sp, "web1/d", 3000, &dropped, &drops), 0, "a fourth");
	check_int((long long)dropped, 1, "the fourth drops one");
	check_str(drops.said[0], "web1/a", "the oldest");
	check_that(sp.bytes <= 10000);
	check_int(add(&sp, "web1/huge", 20000, &dropped, &drops), 0, "an entry over the whole bound");
	check_int((long long)dropped, 2, "is dropped itself");
	check_that(drops.n == 2 && drops.too_big[1] && !strcmp(drops.said[1], "web1/huge"));
	check_int((long long)sp.n, 3, "the others stay");
	check_int(fleet_spool_read(&sp, 0, &d, err, sizeof(err)), 0, "the oldest reads back");
	check_int((long long)d.session_id.len, 7, "its session id, escape byte and all");
	check_that(!memcmp(d.session_id.p, "web1/b\x1b", 7));
	check_contains(d.block[2], "web1/b\x1b", "its manifest row");
	fleet_spool_data_free(&d);
	fleet_spool_close(&sp);

	/* reopened: the same entries in the same order; a temporary left by
	 * a crash goes; a damaged entry is refused by name */
	p = op_xasprintf("%s/.tmp.00000000000000000099", sd);
	f = fopen(p, "w");
	fputs("half", f);
	fclose(f);
	check_assert(!fleet_spool_open(&sp, sd, 10000, err, sizeof(err)), "reopen: %s", err);
	check_int((long long)sp.n, 3, "three entries after a reopen");
	check_that(access(p, F_OK) != 0);
	free(p);
	p = op_xasprintf("%s/%020llu", sd, (unsigned long long)sp.v[1].seq);
	f = fopen(p, "w");
	fputs("oprofile-fleet-spool 1\nweb1/c\n10 0 5\nshort", f);
	fclose(f);
	check_int(fleet_spool_read(&sp, 1, &d, err, sizeof(err)), -1, "a cut entry");
	check_contains(err, "do not add up", "is refused");
	fleet_spool_remove(&sp, 1);
	check_that(access(p, F_OK) != 0 && sp.n == 2);
	free(p);
	fleet_spool_close(&sp);
	free(sd);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	dir = check_tmpdir();
	test_tsv__escapes();
	test_tsv__field_round_trip();
	test_schema__sql();
	test_http__urls();
	test_cred__good_and_bad();
	test_http__errors();
	test_settings__file();
	test_spool__bound_and_order();
	return check_done();
}
