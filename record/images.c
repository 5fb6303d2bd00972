/*
 * images.c: what the image tables of both platforms share.
 *
 * The return-address test of the x86_64 leaf search: a stack word is
 * taken for the caller of a frameless leaf only if it points into a
 * recorded image just after a call instruction, read from the target's
 * code itself.
 */
#include "images.h"

int images_is_return(void *ctx, uint64_t addr)
{
	struct images *im = ctx;
	uint8_t code[7];

	if (addr < 4096 || !images_covers(im, addr))
		return 0;
	if (target_read(images_target(im), addr - 7, code, sizeof(code)) < 0)
		return 0;
	return unwind_x86_64_after_call(code);
}
