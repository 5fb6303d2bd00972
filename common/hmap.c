/*
 * hmap.c: linear-probing hash map keyed by two 64-bit words.
 *
 * The table stays at most half full, so probes are short. Deletion shifts
 * the entries after the hole back into it where their probe allows, so no
 * tombstones pile up in a table whose keys come and go (thread ids).
 */
#include "hmap.h"
#include "diag.h"

#include <stdlib.h>
#include <xxhash.h>

void hmap_init(struct hmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
}

void hmap_release(struct hmap *m)
{
	free(m->slots);
	hmap_init(m);
}

static size_t hash(uint64_t a, uint64_t b)
{
	uint64_t k[2] = { a, b };
	return (size_t)XXH3_64bits(k, sizeof(k));
}

static struct hmap_slot *find(const struct hmap *m, uint64_t a, uint64_t b)
{
	size_t mask = m->cap - 1;
	size_t i = hash(a, b) & mask;

	while (m->slots[i].used && (m->slots[i].a != a || m->slots[i].b != b))
		i = (i + 1) & mask;
	return &m->slots[i];
}

uint64_t *hmap_get(const struct hmap *m, uint64_t a, uint64_t b)
{
	struct hmap_slot *s;

	if (!m->cap)
		return NULL;
	s = find(m, a, b);
	return s->used ? &s->value : NULL;
}

static void rehash(struct hmap *m, size_t cap)
{
	struct hmap old = *m;

	m->slots = xcalloc(cap, sizeof(*m->slots));
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].used)
			*find(m, old.slots[i].a, old.slots[i].b) = old.slots[i];
	free(old.slots);
}

uint64_t *hmap_put(struct hmap *m, uint64_t a, uint64_t b, uint64_t init, int *added)
{
	struct hmap_slot *s;

	if ((m->count + 1) * 2 > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 64);
	s = find(m, a, b);
	if (added)
		*added = !s->used;
	if (!s->used) {
		s->used = 1;
		s->a = a;
		s->b = b;
		s->value = init;
		m->count++;
	}
	return &s->value;
}

int hmap_del(struct hmap *m, uint64_t a, uint64_t b)
{
	size_t mask = m->cap - 1, hole, j;
	struct hmap_slot *s;

	if (!m->cap || !(s = find(m, a, b))->used)
		return 0;
	hole = (size_t)(s - m->slots);
	for (j = (hole + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
		size_t home = hash(m->slots[j].a, m->slots[j].b) & mask;

		/* The entry at j may fill the hole unless its home lies
		 * (cyclically) after the hole and up to j. */
		if (hole < j ? home > hole && home <= j : home > hole || home <= j)
			continue;
		m->slots[hole] = m->slots[j];
		hole = j;
	}
	m->slots[hole].used = 0;
	m->count--;
	return 1;
}
