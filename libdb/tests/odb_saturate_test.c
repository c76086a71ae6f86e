/*
 * Saturation: counts are u32 and must stop at UINT32_MAX instead of
 * wrapping to a small number. An add that loses counts returns
 * ODB_SATURATED and is counted in db->saturated; one that lands exactly on
 * UINT32_MAX loses nothing and is a plain success.
 */
#include <stdio.h>

#include "odb_helpers.h"

static odb_value_t value_of(struct odb *db, odb_key_t key)
{
	uint32_t i, end = odb_count(db) + 1;

	for (i = 1; i < end; i++)
		if (db->nodes[i].key == key)
			return db->nodes[i].value;
	check_assert_failed(__FILE__, __LINE__, "key 0x%llx missing",
			    (unsigned long long)key);
}

int main(void)
{
	char const *path = t_path("saturate.samples");
	struct odb db;
	int rc;

	t_open(&db, path, ODB_RDWR);
	check_assert(odb_add(&db, 0x10, UINT32_MAX - 10) == 0, "insert near the top");
	check_assert(odb_add(&db, 0x10, 10) == 0, "add up to exactly UINT32_MAX");
	check_assert(value_of(&db, 0x10) == UINT32_MAX, "not at UINT32_MAX");
	check_assert(db.saturated == 0, "landing on UINT32_MAX is not saturation");
	check_pass("reaching exactly UINT32_MAX returns 0, saturated stays 0");

	rc = odb_add(&db, 0x10, 1);
	check_assert(rc == ODB_SATURATED, "add past the top returned %d", rc);
	check_assert(value_of(&db, 0x10) == UINT32_MAX, "value wrapped to %u",
		     value_of(&db, 0x10));
	check_assert(db.saturated == 1, "saturated = %llu",
		     (unsigned long long)db.saturated);

	check_assert(odb_add(&db, 0x20, UINT32_MAX - 1) == 0, "second key");
	rc = odb_add(&db, 0x20, UINT32_MAX);
	check_assert(rc == ODB_SATURATED, "big add past the top returned %d", rc);
	check_assert(value_of(&db, 0x20) == UINT32_MAX, "value %u",
		     value_of(&db, 0x20));
	check_assert(odb_add(&db, 0x10, 0) == 0, "adding 0 to a full count");
	check_assert(db.saturated == 2, "saturated = %llu",
		     (unsigned long long)db.saturated);
	check_pass("adds past UINT32_MAX stop there, return ODB_SATURATED, saturated = 2");

	check_assert(odb_add(&db, 0x30, 5) == 0, "other keys unaffected");
	check_assert(value_of(&db, 0x30) == 5, "other key");
	check_assert(odb_check(&db) == 0, "odb_check: %s", db.err);
	odb_close(&db);

	t_open(&db, path, ODB_RDONLY);
	check_assert(value_of(&db, 0x10) == UINT32_MAX, "after reopen");
	check_assert(value_of(&db, 0x20) == UINT32_MAX, "after reopen");
	odb_close(&db);
	check_pass("saturated counts persist as UINT32_MAX after reopening");
	return check_done();
}
