/*
 * memory.h: how portable code reads a target's memory.
 *
 * The unwinder, the CFI expression evaluator, the sampler's sources and
 * the dyld image-list reader never call the OS for a process's memory:
 * they are handed a memory_read_fn and its ctx (process_vm_readv on
 * Linux, vm_read_overwrite on macOS, a memory image in a test).
 */
#ifndef RECORD_MEMORY_H
#define RECORD_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Reads len bytes of target memory at addr into buf: 0, or negative if
 * any byte is unreadable. */
typedef int (*memory_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
