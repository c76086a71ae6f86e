/*
 * The fleet's credentials file: who the shipper (or a reader) is to the
 * server. Lines "user = NAME" and "password = TEXT" ('#' comments, blank
 * lines); the password is the rest of its line after "= ". The file must
 * be a regular file (not a link, a FIFO or a device), owned by root or by
 * the effective user, with no access for group or others (0600 or
 * stricter), at most 4 KiB. The password is never put in a message.
 */
#ifndef FLEET_CRED_H
#define FLEET_CRED_H

#include <stddef.h>

struct fleet_cred {
	char user[128];
	char password[512];
};

/* Read and check path into c. 0, or -1 with err naming path and why. */
int fleet_cred_read(char const *path, struct fleet_cred *c, char *err,
		    size_t errlen);

/* Overwrite the secret before c goes. */
void fleet_cred_clear(struct fleet_cred *c);

#endif /* FLEET_CRED_H */
