/*
 * memory_linux.c: another process's memory, read with process_vm_readv(2).
 *
 * The ptrace sampler reads a stopped thread's stack with it, and the
 * perf_event sampler the stack of a thread that is off the CPU, which
 * does not need stopping. A single iovec is all or nothing, so a stack
 * copy goes in page-sized pieces: the top of a stack is the end of its
 * mapping.
 */
#include "record/memory.h"

#include <errno.h>
#include <sys/uio.h>

#define PIECE 4096u
#define PIECES 32u    /* reads of more than 124 KiB stop there */

long memory_read_upto(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local[PIECES], remote[PIECES];
	size_t n = 0, total = 0;
	uint64_t at = addr;
	ssize_t got;

	while (total < len && n < PIECES) {
		size_t piece = PIECE - (size_t)(at % PIECE);
		if (piece > len - total)
			piece = len - total;
		local[n].iov_base = (char *)buf + total;
		local[n].iov_len = piece;
		remote[n].iov_base = (void *)(uintptr_t)at;
		remote[n].iov_len = piece;
		n++;
		total += piece;
		at += piece;
	}
	got = process_vm_readv(pid, local, n, remote, n, 0);
	return got < 0 ? -errno : got;
}

int memory_read_words(pid_t pid, const uint64_t *addr, uint64_t *out, size_t n)
{
	struct iovec local[1024], remote[1024];
	ssize_t got;

	if (n > 1024)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		local[i] = (struct iovec){ &out[i], 8 };
		remote[i] = (struct iovec){ (void *)(uintptr_t)addr[i], 8 };
	}
	got = process_vm_readv(pid, local, n, remote, n, 0);
	if (got < 0)
		return -errno;
	return (size_t)got == 8 * n ? 0 : -EFAULT;
}

int memory_read_pid(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(*(const pid_t *)ctx, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}
