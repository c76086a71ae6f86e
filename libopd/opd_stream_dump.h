/* Text dump of a recorded stream (opstream dump, tests). */
#ifndef OPD_STREAM_DUMP_H
#define OPD_STREAM_DUMP_H

#include <stdio.h>

/* Decode the stream file path, writing one line per escape record and per
 * sample or arc to out. 0, or -1 on a read error or decode errors. */
int opd_stream_dump(char const *path, FILE *out);

#endif /* OPD_STREAM_DUMP_H */
