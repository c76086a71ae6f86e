/* opfleet's commands (opfleet.c): create, and ship (opfleet_ship.c). */
#ifndef OPFLEET_H
#define OPFLEET_H

/* opfleet ship: argv after the command word (optind set). Exit status. */
int opfleet_ship(int argc, char **argv);

#endif /* OPFLEET_H */
