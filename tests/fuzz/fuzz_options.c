/*
 * libFuzzer target for the option and command parsers the daemon and
 * opcontrol share (libop): event specs (op_parse_event_spec), --separate
 * (op_settings_separate), --callgraph (op_settings_callgraph), control
 * FIFO lines (op_command_parse) and session names (op_session_name_ok).
 * The input, up to a NUL, is the text; each parser must accept it or say
 * why, and what it accepts must be sane (a separate set that prints and
 * parses back the same, a command id within its limits).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_events.h"
#include "op_session.h"
#include "op_session_control.h"
#include "op_session_settings.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static void separate(char const *text)
{
	char err[512] = "", again[128];
	unsigned bits, bits2;

	if (op_settings_separate(text, &bits, err, sizeof(err))) {
		if (!err[0])
			abort();
		return;
	}
	op_settings_separate_text(bits, again, sizeof(again));
	if (op_settings_separate(again, &bits2, err, sizeof(err)) || bits2 != bits)
		abort();	/* the printed form must parse back the same */
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct op_event_spec spec;
	struct op_command cmd;
	unsigned depth;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	if (op_parse_event_spec(text, &spec, err, sizeof(err)) && !err[0])
		abort();
	if (!op_parse_event_spec(text, &spec, err, sizeof(err)) &&
	    (!spec.name[0] || !spec.count || (!spec.kernel && !spec.user)))
		abort();
	separate(text);
	err[0] = '\0';
	if (op_settings_callgraph(text, &depth, err, sizeof(err)) && !err[0])
		abort();
	err[0] = '\0';
	if (op_command_parse(text, &cmd, err, sizeof(err)) == 0) {
		if (strlen(cmd.id) >= sizeof(cmd.id) || cmd.cmd > OP_CMD_EXIT)
			abort();
	} else if (!err[0]) {
		abort();
	}
	op_session_name_ok(text, err, sizeof(err));
	free(text);
	return 0;
}
