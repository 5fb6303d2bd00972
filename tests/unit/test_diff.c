/*
 * test_diff.c: merging two profiles by name, with the root frame taken as
 * equal, and the base scaled to the new run's total.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"

static const char *a1[] = { "old", "main", "a" }, *b1[] = { "old", "main", "b" },
		  *b2[] = { "new", "main", "b" }, *c2[] = { "new", "main", "c" };

Test(diff, merged_by_name_under_the_new_root)
{
	struct profile_stack bs[] = { { a1, 3, 30 }, { b1, 3, 10 } };
	struct profile_stack ns[] = { { b2, 3, 60 }, { c2, 3, 20 } };
	struct profile base = { bs, 2, 40 }, new = { ns, 2, 80 };
	struct diff d;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	diff_build(&base, &new, &d);
	cr_assert_eq(d.nstacks, 3);
	cr_assert_str_eq(d.stacks[0].frames[2], "a");
	cr_assert_eq(d.stacks[0].base, 30);
	cr_assert_eq(d.stacks[0].new, 0);
	cr_assert_str_eq(d.stacks[1].frames[2], "b");
	cr_assert_eq(d.stacks[1].base, 10);
	cr_assert_eq(d.stacks[1].new, 60);
	cr_assert_eq(d.stacks[2].base, 0);
	/* 30 of 40 is 60 of 80. */
	cr_assert_eq(diff_scaled_base(&d, 30), 60);
	cr_assert_eq(diff_write_folded(f, &d), 0);
	fclose(f);
	cr_assert_str_eq(out, "new;main;a 60 0\nnew;main;b 20 60\nnew;main;c 0 20\n");
	free(out);
	diff_release(&d);
}

Test(diff, empty_base_scales_to_nothing)
{
	struct profile_stack ns[] = { { c2, 3, 20 } };
	struct profile base = { NULL, 0, 0 }, new = { ns, 1, 20 };
	struct diff d;

	diff_build(&base, &new, &d);
	cr_assert_eq(d.nstacks, 1);
	cr_assert_eq(diff_scaled_base(&d, 5), 0);
	diff_release(&d);
}
