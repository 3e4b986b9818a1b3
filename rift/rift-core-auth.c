// SPDX-License-Identifier: GPL-2.0
/*
 * Rift core: the HMAC-SHA256 proofs of host authentication.  What a proof
 * covers is built by rift_auth_transcript() (pure, in rift-proto.c, so
 * the unit tests and the user-space peer build the same bytes); this file
 * only keys the kernel's hmac(sha256) with a secret and runs it.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <crypto/hash.h>
#include <crypto/algapi.h>

#include "rift-core.h"

/**
 * rift_auth_proof() - compute one side's proof
 * @key: the secret
 * @keylen: its length (%RIFT_AUTH_SECRET_MIN..%RIFT_AUTH_SECRET_MAX)
 * @role: whose proof
 * @ids: what it binds
 * @proof: %RIFT_AUTH_PROOF_LEN bytes of output
 *
 * Process context (the transform is allocated per call: proofs are made
 * once per path setup, and a private transform needs no lock around its
 * key).
 *
 * Return: 0, or a negative errno (no hmac(sha256) in this kernel, no
 * memory, invalid names).
 */
int rift_auth_proof(const u8 *key, size_t keylen, enum rift_auth_role role,
		    const struct rift_auth_ids *ids, u8 *proof)
{
	struct crypto_shash *tfm;
	u8 *buf;
	int len, err;

	buf = kmalloc(RIFT_AUTH_TRANSCRIPT_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = rift_auth_transcript(role, ids, buf, RIFT_AUTH_TRANSCRIPT_MAX);
	if (len < 0) {
		err = len;
		goto out_buf;
	}
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm)) {
		err = PTR_ERR(tfm);
		goto out_buf;
	}
	err = crypto_shash_setkey(tfm, key, keylen);
	if (!err)
		err = crypto_shash_tfm_digest(tfm, buf, len, proof);
	crypto_free_shash(tfm);
out_buf:
	kfree_sensitive(buf);
	return err;
}
EXPORT_SYMBOL_GPL(rift_auth_proof);

/**
 * rift_auth_check() - verify the peer's proof
 * @key: the secret the peer must know
 * @keylen: its length
 * @role: the peer's role
 * @ids: what the proof must bind
 * @proof: the %RIFT_AUTH_PROOF_LEN bytes the peer sent
 *
 * Return: 0 if @proof is right, -EKEYREJECTED if not, another negative
 * errno if it could not be computed.
 */
int rift_auth_check(const u8 *key, size_t keylen, enum rift_auth_role role,
		    const struct rift_auth_ids *ids, const u8 *proof)
{
	u8 want[RIFT_AUTH_PROOF_LEN];
	int err;

	err = rift_auth_proof(key, keylen, role, ids, want);
	/* Constant time: the comparison must not tell how much was right. */
	if (!err && crypto_memneq(want, proof, sizeof(want)))
		err = -EKEYREJECTED;
	memzero_explicit(want, sizeof(want));
	return err;
}
EXPORT_SYMBOL_GPL(rift_auth_check);
