/*
 * opfleet: the fleet's ClickHouse side of a host (doc/fleet.md).
 *
 *   opfleet create --url URL [--url URL ...] --credentials FILE
 *                  [--cluster NAME] [--database DB] [--ca FILE]
 *       creates the database and tables (fleet_schema.h) on each server
 *       named; with --cluster, the NAME_local tables and the Distributed
 *       ones on each (18.16 runs ON CLUSTER only with ZooKeeper, so every
 *       shard is named here). Statements may run again: IF NOT EXISTS.
 *
 *   opfleet ship [--session-dir DIR]
 *       the shipper (opfleet_ship.c): what oprofiled starts after a
 *       rotation or a save; settings from oprofiled.conf.
 *
 * Exit 0 on success, 1 on a failure, 2 on a usage error.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_http.h"
#include "fleet_schema.h"
#include "op_message.h"
#include "op_version.h"
#include "opfleet.h"

#define USAGE "opfleet create --url URL --credentials FILE [--cluster NAME] [--database DB] [--ca FILE]\n" \
	      "       opfleet ship [--session-dir DIR]"

static _Noreturn void usage(char const *why)
{
	fprintf(stderr, "opfleet: %s\nusage: %s\n", why, USAGE);
	exit(2);
}

static int create(int argc, char **argv)
{
	static struct option const longs[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "credentials", required_argument, NULL, 'c' },
		{ "cluster", required_argument, NULL, 'C' },
		{ "database", required_argument, NULL, 'd' },
		{ "ca", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	char const *urls[64], *cred = NULL, *cluster = NULL, *db = NULL;
	struct fleet_http_opts o = { 0 };
	struct fleet_buf out = { 0 };
	size_t nr_urls = 0, i, j;
	char err[4096], **sql;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (nr_urls == sizeof(urls) / sizeof(urls[0]))
				usage("at most 64 --url");
			urls[nr_urls++] = optarg;
			break;
		case 'c': cred = optarg; break;
		case 'C': cluster = optarg; break;
		case 'd': db = optarg; break;
		case 'a': o.ca_file = optarg; break;
		default: usage("unknown option");
		}
	}
	if (optind != argc)
		usage("create takes no arguments");
	if (!nr_urls)
		usage("name the server: --url URL (each shard's with --cluster)");
	sql = fleet_schema_sql(db, cluster, err, sizeof(err));
	if (!sql)
		usage(err);
	for (i = 0; i < nr_urls && !ret; i++) {
		struct fleet_http h;

		if (fleet_http_open(&h, urls[i], cred, &o, err, sizeof(err))) {
			ret = op_error("%s", err);
			break;
		}
		for (j = 0; sql[j] && !ret; j++)
			if (fleet_http_post(&h, sql[j], NULL, NULL, 0, &out, err,
					    sizeof(err)))
				ret = op_error("%s", err);
		if (!ret)
			printf("opfleet: schema of database '%s' ready on '%s'%s%s\n",
			       db ? db : FLEET_DATABASE_DEFAULT, h.url,
			       cluster ? " for cluster " : "",
			       cluster ? cluster : "");
		fleet_http_close(&h);
	}
	fleet_buf_free(&out);
	fleet_schema_free(sql);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	op_set_progname("opfleet");
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v"))) {
		op_print_version(stdout, "opfleet");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		printf("usage: %s\n", USAGE);
		return 0;
	}
	if (argc < 2)
		usage("say what: create or ship");
	optind = 2;
	if (!strcmp(argv[1], "create"))
		return create(argc, argv);
	if (!strcmp(argv[1], "ship"))
		return opfleet_ship(argc, argv);
	usage("unknown command (create or ship)");
}
