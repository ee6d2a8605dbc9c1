/*
 * crypt.h — the page cipher (docs/DESIGN.md §5).
 *
 * Owns: deriving the keys of one file from the user's 64-byte key and the
 * file's salt (HKDF-SHA256 over all 64 bytes), encrypting, decrypting and
 * authenticating one 4096-byte page with AES-256-GCM through OpenSSL's EVP
 * interface, the MAC of header pages (HMAC-SHA256), and random bytes for
 * salts and nonces.
 * Never: keeps the 64-byte key (only keys derived from it, wiped when the
 * cipher is destroyed), touches a file, or decides what a failed
 * authentication means (the pager does).
 *
 * One HKDF-SHA256 call (input: the 64 key bytes, salt: the file's 16-byte
 * random salt, info: "OpenRealm key material v1") yields 80 bytes: the
 * AES-256 page key, the HMAC-SHA256 header key, and a 16-byte key check
 * value stored in the file's static page. The check value is an output of
 * the same pseudo-random function as the keys under another part of the
 * output, so it tells a wrong key at open without revealing the keys.
 *
 * A page is encrypted under a 96-bit nonce with the page's number as
 * additional authenticated data, so a page copied to another place fails
 * authentication. Nonces never repeat under one key: the pager draws a
 * fresh random 96-bit base for each batch of writes and counts up from it
 * (see pager.c).
 */
#ifndef CE_CRYPT_H
#define CE_CRYPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CRYPT_KEY_SIZE 64u
#define CRYPT_SALT_SIZE 16u
#define CRYPT_CHECK_SIZE 16u
#define CRYPT_NONCE_SIZE 12u
#define CRYPT_TAG_SIZE 16u
#define CRYPT_MAC_SIZE 32u
#define CRYPT_PAGE_SIZE 4096u

typedef struct crypt_state crypt_state;

/* Derives the keys of a file from `key` (64 bytes; not kept) and the file's
 * salt, and its key check value. */
bool crypt_create(const uint8_t key[CRYPT_KEY_SIZE], const uint8_t salt[CRYPT_SALT_SIZE], crypt_state **out_crypt,
                  uint8_t out_check[CRYPT_CHECK_SIZE]);

/* A second cipher with the same keys (for another file of the same key). */
bool crypt_clone(const crypt_state *crypt, crypt_state **out_crypt);

/* Wipes the derived keys and releases the cipher (NULL is ignored). */
void crypt_destroy(crypt_state *crypt);

/* Cryptographically random bytes (salts, nonce bases). */
bool crypt_random(void *out, size_t length);

/* Encrypts one page. `plain` and `cipher` may be the same buffer. Not
 * thread-safe for one crypt_state (the pager serializes). */
bool crypt_encrypt_page(crypt_state *crypt, uint64_t page_number, const uint8_t nonce[CRYPT_NONCE_SIZE],
                        const uint8_t *plain, uint8_t *cipher, uint8_t out_tag[CRYPT_TAG_SIZE]);

/* Decrypts one page and checks its tag: *out_authentic is false (and the
 * output is to be discarded) if the page, its nonce, its tag or its number
 * do not match. Returns false only if the cipher itself failed. `cipher`
 * and `plain` may be the same buffer. Not thread-safe for one crypt_state. */
bool crypt_decrypt_page(crypt_state *crypt, uint64_t page_number, const uint8_t nonce[CRYPT_NONCE_SIZE],
                        const uint8_t tag[CRYPT_TAG_SIZE], const uint8_t *cipher, uint8_t *plain,
                        bool *out_authentic);

/* HMAC-SHA256 of a header page under the header key. */
bool crypt_mac(const crypt_state *crypt, const void *data, size_t length, uint8_t out_mac[CRYPT_MAC_SIZE]);

/* Compares secrets in constant time. */
bool crypt_equal(const void *a, const void *b, size_t length);

/* Wipes memory that held a secret (not optimized away). */
void crypt_wipe(void *memory, size_t length);

#endif
