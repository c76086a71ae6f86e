/* The fleet's settings (op_fleet_settings.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_fleet_settings.h"

static int say(char *err, size_t errlen, char const *what, char const *v,
	       char const *why)
{
	char *e = op_escape(v ? v : "");

	snprintf(err, errlen, "%s '%s': %s", what, e, why);
	free(e);
	return -1;
}

int op_fleet_url_check(char const *url, char *err, size_t errlen)
{
	char const *host, *p;

	if (!url || !*url)
		return say(err, errlen, "fleet URL", "", "empty");
	for (p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return say(err, errlen, "fleet URL", url,
				   "a space, control or non-ASCII byte in it");
	if (!strncmp(url, "http://", 7))
		host = url + 7;
	else if (!strncmp(url, "https://", 8))
		host = url + 8;
	else
		return say(err, errlen, "fleet URL", url, "not http:// or https://");
	p = host + strcspn(host, "/");
	if (memchr(host, '@', (size_t)(p - host))) {
		/* said without them: the message may go to a log */
		char const *at = memrchr(host, '@', (size_t)(p - host));
		char shown[512];

		snprintf(shown, sizeof(shown), "%.*s...%s", (int)(host - url),
			 url, at);
		return say(err, errlen, "fleet URL", shown,
			   "credentials do not go in the URL: use a credentials file");
	}
	if (p == host)
		return say(err, errlen, "fleet URL", url, "no host");
	if (strpbrk(url, "?#"))
		return say(err, errlen, "fleet URL", url, "a query or fragment in it");
	return 0;
}

int op_fleet_name_check(char const *what, char const *name, char *err,
			size_t errlen)
{
	size_t i, len = name ? strlen(name) : 0;

	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i && c >= '0' && c <= '9')))
			break;
	}
	if (len && len <= 64 && i == len)
		return 0;
	return say(err, errlen, what, name ? name : "",
		   "use a letter or '_', then letters, digits or '_' (at most 64)");
}

/* Printable (no control byte, no DEL), 1..max bytes. */
static int printable(char const *v, size_t max)
{
	size_t len = strlen(v);

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return 0;
	return len > 0 && len <= max;
}

int op_fleet_setting_check(char const *key, char const *name,
			   char const *v, char *err, size_t errlen)
{
	if (!name)
		name = key;
	if (!strcmp(key, "fleet_url"))
		return op_fleet_url_check(v, err, errlen);
	if (!strcmp(key, "fleet_credentials") || !strcmp(key, "fleet_ca"))
		return v[0] == '/' ? 0 :
		       say(err, errlen, name, v, "not an absolute path");
	if (!strcmp(key, "fleet_host"))
		return printable(v, 255) && !strchr(v, '/') ? 0 :
		       say(err, errlen, name, v, "not 1 to 255 printable bytes without '/'");
	if (!strcmp(key, OP_FLEET_LABEL_KEY)) {
		char const *eq = strchr(v, '=');

		return eq && eq > v && eq[1] && printable(v, 255) ? 0 :
		       say(err, errlen, name, v, "not key=value (printable, at most 255 bytes)");
	}
	if (!strcmp(key, "fleet_database"))
		return op_fleet_name_check(name, v, err, errlen);
	if (!strcmp(key, "fleet_cluster"))
		return op_fleet_name_check(name, v, err, errlen);
	snprintf(err, errlen, "unknown setting '%s'", key);
	return -1;
}
