/* Text dump of a recorded stream (opstream dump, tests). */
#ifndef OPSTREAM_DUMP_H
#define OPSTREAM_DUMP_H

#include <stdio.h>

/* Decode the stream file path, writing one line per escape record and per
 * sample or arc to out. 0, or -1 on a read error or decode errors. */
int opstream_dump(char const *path, FILE *out);

#endif /* OPSTREAM_DUMP_H */
