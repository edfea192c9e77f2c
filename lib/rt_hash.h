/* rt_hash: SHA-256 digests (OpenSSL libcrypto) for cache keys and evidence
 * digests. */
#ifndef RT_HASH_H
#define RT_HASH_H

#include <stddef.h>

typedef struct rt_hash rt_hash;
rt_hash *rt_hash_new(void);
/* Add bytes; a length prefix is mixed in so ("ab","c") != ("a","bc"). */
void rt_hash_add(rt_hash *h, const void *p, size_t n);
void rt_hash_adds(rt_hash *h, const char *s);
/* Finish into 65 bytes of lowercase hex and free h. */
void rt_hash_hex(rt_hash *h, char out[65]);
/* One-shot SHA-256 of raw bytes (no length prefix). */
void rt_sha256_hex(const void *p, size_t n, char out[65]);

#endif
