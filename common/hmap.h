/*
 * hmap.h: an open-addressing hash map from a pair of 64-bit keys to a 64-bit
 * value, hashed with xxHash (XXH3).
 *
 * Used for the stack prefix tree (parent node, address) -> node, for
 * per-(image, address) symbol caches and for tid lookups. Caller-owned
 * storage: hmap_init() before use, hmap_release() after.
 */
#ifndef COMMON_HMAP_H
#define COMMON_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t a, b, value;
	uint8_t used;
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap;   /* a power of two, or 0 */
	size_t count;
};

void hmap_init(struct hmap *m);
void hmap_release(struct hmap *m);
/* Returns a pointer to the value stored for (a, b), or NULL. The pointer is
 * borrowed until the next insertion. */
uint64_t *hmap_get(const struct hmap *m, uint64_t a, uint64_t b);
/* Returns the value slot for (a, b), inserting it with value `init` if it was
 * absent; *added (if non-NULL) says which. Borrowed until the next insertion. */
uint64_t *hmap_put(struct hmap *m, uint64_t a, uint64_t b, uint64_t init, int *added);
/* Removes (a, b) if present, so that a table of live things (threads) stays
 * as large as what is alive, not as all it ever held. Returns 1 if it was
 * there, else 0. Pointers from hmap_get() and hmap_put() are invalid after. */
int hmap_del(struct hmap *m, uint64_t a, uint64_t b);

#endif
