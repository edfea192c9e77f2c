/* rt_hash: SHA-256 through libcrypto's EVP interface. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "rt_hash.h"
#include "rt_util.h"

struct rt_hash {
	EVP_MD_CTX *ctx;
};

rt_hash *
rt_hash_new(void)
{
	rt_hash *h = rt_xmalloc(sizeof *h);
	if (!(h->ctx = EVP_MD_CTX_new()) ||
	    EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
		rt_die("libcrypto: cannot start SHA-256");
	return h;
}

void
rt_hash_add(rt_hash *h, const void *p, size_t n)
{
	unsigned char len[8];
	uint64_t v = n;
	int i;

	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)(v >> (8 * i));
	if (EVP_DigestUpdate(h->ctx, len, 8) != 1 ||
	    (n && EVP_DigestUpdate(h->ctx, p, n) != 1))
		rt_die("libcrypto: SHA-256 update failed");
}

void
rt_hash_adds(rt_hash *h, const char *s)
{
	rt_hash_add(h, s, s ? strlen(s) : 0);
}

static void
tohex(const unsigned char *md, unsigned n, char out[65])
{
	static const char hx[] = "0123456789abcdef";
	unsigned i;
	for (i = 0; i < n && i < 32; i++) {
		out[2 * i] = hx[md[i] >> 4];
		out[2 * i + 1] = hx[md[i] & 15];
	}
	out[2 * i] = '\0';
}

void
rt_hash_hex(rt_hash *h, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	if (EVP_DigestFinal_ex(h->ctx, md, &n) != 1)
		rt_die("libcrypto: SHA-256 final failed");
	EVP_MD_CTX_free(h->ctx);
	free(h);
	tohex(md, n, out);
}

void
rt_sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	if (EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) != 1)
		rt_die("libcrypto: SHA-256 failed");
	tohex(md, len, out);
}
