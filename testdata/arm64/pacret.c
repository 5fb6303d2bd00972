/*
 * pacret: an aarch64 Linux program that is never run, only read: its
 * .eh_frame, as clang writes it with pointer authentication of return
 * addresses (-mbranch-protection=pac-ret+leaf), says
 * DW_CFA_AARCH64_negate_ra_state in every function, and the functions
 * signed with the B key have a CIE of their own with the 'B' augmentation.
 * A frameless leaf, a function with a frame record below its locals, and
 * one with a variable-sized frame give rows of each kind. No C library:
 * it links with lld from nothing but this file.
 */
#define NOINLINE __attribute__((noinline))
#define B_KEY __attribute__((target("branch-protection=pac-ret+leaf+b-key")))

NOINLINE static unsigned long leaf(unsigned long x)
{
	for (int i = 0; i < 100; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE static unsigned long locals(unsigned long x)
{
	volatile unsigned long keep[6] = { x, x + 1, x + 2 };
	return leaf(keep[0]) + keep[1] + keep[5];
}

NOINLINE B_KEY static unsigned long sized(unsigned long n)
{
	volatile unsigned char buf[n + 1];
	buf[n] = (unsigned char)n;
	return locals(buf[n]) + buf[0];
}

NOINLINE B_KEY static unsigned long b_leaf(unsigned long x)
{
	return x ^ (x >> 7);
}

void _start(void)
{
	volatile unsigned long r = sized(16) + b_leaf(3);
	(void)r;
	for (;;)
		__asm__ volatile("wfi");
}
