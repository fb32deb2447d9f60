/*
 * hash.h - content hashes of the suite's inputs: 64-bit FNV-1a over bytes,
 * and over a document's canonical form (what the library's own writer makes
 * of the parsed document), so that reformatting a file -- flow or block
 * style, comments, key order, number spelling -- keeps its hash, and any
 * change of what is read changes it.  The results store keys runs on them
 * (results/db.h: workload_hash, cluster_hash).
 *
 * FNV-1a is not cryptographic: it tells documents apart, it does not defend
 * against someone forging a collision (nor need it: the inputs are the
 * user's own).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_HASH_H
#define BAECHI_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct workload;
struct cluster;

/* The FNV-1a 64 offset basis: the hash of no bytes. */
#define HASH_FNV1A64_INIT 0xcbf29ce484222325ULL

/* A hash as text: 16 lower-case hex digits and a NUL. */
#define HASH_HEX_SIZE 17

/* FNV-1a 64 of p[0..len) continued from h (HASH_FNV1A64_INIT to start). */
uint64_t hash_fnv1a64(const void *p, size_t len, uint64_t h);

/* h as 16 hex digits ("%016" PRIx64). */
void hash_hex(uint64_t h, char out[HASH_HEX_SIZE]);

/* Writes a document to f: 0 or an error code. */
typedef int (*hash_write_fn)(const void *doc, FILE *f);

/*
 * The FNV-1a 64 of what write(doc, f) writes (into memory, never a file).
 * 0, the writer's error, or BAECHI_ENOMEM.
 */
int hash_written(hash_write_fn write, const void *doc, uint64_t *out);

/*
 * The content hash of a workload (its workload_write_yaml text) and of a
 * cluster (its cluster_write_yaml text), as hex.  0 or an error code.
 */
int hash_workload(const struct workload *w, char out[HASH_HEX_SIZE]);
int hash_cluster(const struct cluster *c, char out[HASH_HEX_SIZE]);

#endif
