/*
 * The lookups of an empty profile (every sample file refused, a planted
 * FIFO or garbage, say): nothing found, and no NULL array handed to
 * bsearch (UBSan's nonnull check, under which make check-unit runs).
 */
#include <stdint.h>

#include "check.h"
#include "pp_profile.h"

int main(void)
{
	struct pp_profile p = { 0 };

	check_int(pp_profile_find(&p, "/bin/a", "/bin/a", "main", false, 0), -1,
		  "an empty profile finds no entry");
	check_int(pp_profile_find(&p, "/bin/a", "/bin/a", "main", true, 0x10), -1,
		  "nor one with an address");
	check(!pp_profile_has_image(&p, "/bin/a", "/bin/a"), "nor an image");
	check(!pp_profile_has_dependents(&p), "nor dependents");
	return check_done();
}
