/*
 * crypt.c — the page cipher (see crypt.h).
 *
 * Owns: a cipher's state: the page key and the header key derived from the
 * user's key, and one EVP context per direction.
 * Never: keeps the user's key or the derived key material past
 * crypt_create (the material is wiped once it is split), or touches a file.
 *
 * Each crypt_state keeps one EVP context for encryption and one for
 * decryption, keyed once; a page only sets the nonce, which costs no key
 * schedule. The derived keys live in the structure until crypt_destroy,
 * which wipes them (EVP_CIPHER_CTX_free wipes the contexts' copies).
 */
#include "crypt.h"
#include "error.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#include <stdlib.h>
#include <string.h>

#define PAGE_KEY_SIZE 32u
#define HEADER_KEY_SIZE 32u
#define KEY_MATERIAL_SIZE (PAGE_KEY_SIZE + HEADER_KEY_SIZE + CRYPT_CHECK_SIZE)

static const char KEY_MATERIAL_INFO[] = "OpenRealm key material v1";

struct crypt_state {
    uint8_t page_key[PAGE_KEY_SIZE];
    uint8_t header_key[HEADER_KEY_SIZE];
    EVP_CIPHER_CTX *encrypt;
    EVP_CIPHER_CTX *decrypt;
};

static bool fail_openssl(const char *what)
{
    unsigned long code = ERR_get_error();
    char text[256] = "unknown reason";
    if (code) ERR_error_string_n(code, text, sizeof text);
    ERR_clear_error();
    return error_fail(CE_ERR_FAIL, "%s failed (OpenSSL: %s)", what, text);
}

void crypt_wipe(void *memory, size_t length) { OPENSSL_cleanse(memory, length); }

bool crypt_equal(const void *a, const void *b, size_t length) { return CRYPTO_memcmp(a, b, length) == 0; }

bool crypt_random(void *out, size_t length)
{
    if (RAND_bytes(out, (int)length) != 1) return fail_openssl("drawing random bytes");
    return true;
}

/* Both contexts keyed with the page key. */
static bool key_contexts(crypt_state *crypt)
{
    crypt->encrypt = EVP_CIPHER_CTX_new();
    crypt->decrypt = EVP_CIPHER_CTX_new();
    if (!crypt->encrypt || !crypt->decrypt) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory setting up the cipher");
    if (EVP_EncryptInit_ex(crypt->encrypt, EVP_aes_256_gcm(), NULL, crypt->page_key, NULL) != 1 ||
        EVP_DecryptInit_ex(crypt->decrypt, EVP_aes_256_gcm(), NULL, crypt->page_key, NULL) != 1)
        return fail_openssl("setting up AES-256-GCM");
    return true;
}

/* The stack below the caller's frame, where the functions it called kept
 * their locals: OpenSSL's HKDF hashes the 64 key bytes as one SHA-256
 * block, and the block function's message schedule (the key's words) stays
 * in its dead frame. Overwritten here with more than those frames used
 * (HKDF, HMAC, the digest and the block function take a few KiB). Not
 * inlined, so the array lies below the caller's frame; OPENSSL_cleanse
 * cannot be optimized away. */
#define STACK_WIPE_BYTES (32u << 10)
static __attribute__((noinline)) void wipe_stack_below(void)
{
    volatile uint8_t scratch[STACK_WIPE_BYTES];
    OPENSSL_cleanse((void *)scratch, sizeof scratch);
    __asm__ volatile("" : : "r"(scratch) : "memory");
}

/* HKDF-SHA256 of the user's key into `material` (see FORMAT.md, "Keys"). */
static __attribute__((noinline)) bool derive_material(const uint8_t key[CRYPT_KEY_SIZE],
                                                      const uint8_t salt[CRYPT_SALT_SIZE], uint8_t *material,
                                                      size_t *material_size)
{
    EVP_PKEY_CTX *kdf = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    bool derived = kdf && EVP_PKEY_derive_init(kdf) == 1 && EVP_PKEY_CTX_set_hkdf_md(kdf, EVP_sha256()) == 1 &&
                   EVP_PKEY_CTX_set1_hkdf_salt(kdf, salt, (int)CRYPT_SALT_SIZE) == 1 &&
                   EVP_PKEY_CTX_set1_hkdf_key(kdf, key, (int)CRYPT_KEY_SIZE) == 1 &&
                   EVP_PKEY_CTX_add1_hkdf_info(kdf, (const unsigned char *)KEY_MATERIAL_INFO,
                                               (int)(sizeof KEY_MATERIAL_INFO - 1)) == 1 &&
                   EVP_PKEY_derive(kdf, material, material_size) == 1;
    EVP_PKEY_CTX_free(kdf); /* frees (and cleanses) its copies of the key */
    return derived;
}

bool crypt_create(const uint8_t key[CRYPT_KEY_SIZE], const uint8_t salt[CRYPT_SALT_SIZE], crypt_state **out_crypt,
                  uint8_t out_check[CRYPT_CHECK_SIZE])
{
    uint8_t material[KEY_MATERIAL_SIZE];
    size_t material_size = sizeof material;
    bool derived = derive_material(key, salt, material, &material_size) && material_size == sizeof material;
    /* The frames HKDF used, below this one, held the key's bytes. */
    wipe_stack_below();
    if (!derived) {
        crypt_wipe(material, sizeof material);
        return fail_openssl("deriving the encryption keys (HKDF-SHA256)");
    }
    crypt_state *crypt = calloc(1, sizeof *crypt);
    if (!crypt) {
        crypt_wipe(material, sizeof material);
        return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory setting up the cipher");
    }
    memcpy(crypt->page_key, material, PAGE_KEY_SIZE);
    memcpy(crypt->header_key, material + PAGE_KEY_SIZE, HEADER_KEY_SIZE);
    memcpy(out_check, material + PAGE_KEY_SIZE + HEADER_KEY_SIZE, CRYPT_CHECK_SIZE);
    crypt_wipe(material, sizeof material);
    if (!key_contexts(crypt)) {
        crypt_destroy(crypt);
        return false;
    }
    *out_crypt = crypt;
    return true;
}

bool crypt_clone(const crypt_state *crypt, crypt_state **out_crypt)
{
    crypt_state *copy = calloc(1, sizeof *copy);
    if (!copy) return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory setting up the cipher");
    memcpy(copy->page_key, crypt->page_key, PAGE_KEY_SIZE);
    memcpy(copy->header_key, crypt->header_key, HEADER_KEY_SIZE);
    if (!key_contexts(copy)) {
        crypt_destroy(copy);
        return false;
    }
    *out_crypt = copy;
    return true;
}

void crypt_destroy(crypt_state *crypt)
{
    if (!crypt) return;
    EVP_CIPHER_CTX_free(crypt->encrypt);
    EVP_CIPHER_CTX_free(crypt->decrypt);
    crypt_wipe(crypt, sizeof *crypt);
    free(crypt);
}

static void encode_page_number(uint8_t out[8], uint64_t page_number)
{
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(page_number >> (8 * i));
}

bool crypt_encrypt_page(crypt_state *crypt, uint64_t page_number, const uint8_t nonce[CRYPT_NONCE_SIZE],
                        const uint8_t *plain, uint8_t *cipher, uint8_t out_tag[CRYPT_TAG_SIZE])
{
    uint8_t aad[8];
    encode_page_number(aad, page_number);
    int length = 0, final_length = 0;
    if (EVP_EncryptInit_ex(crypt->encrypt, NULL, NULL, NULL, nonce) != 1 ||
        EVP_EncryptUpdate(crypt->encrypt, NULL, &length, aad, (int)sizeof aad) != 1 ||
        EVP_EncryptUpdate(crypt->encrypt, cipher, &length, plain, (int)CRYPT_PAGE_SIZE) != 1 ||
        EVP_EncryptFinal_ex(crypt->encrypt, cipher + length, &final_length) != 1 ||
        length + final_length != (int)CRYPT_PAGE_SIZE ||
        EVP_CIPHER_CTX_ctrl(crypt->encrypt, EVP_CTRL_GCM_GET_TAG, (int)CRYPT_TAG_SIZE, out_tag) != 1)
        return fail_openssl("encrypting a page (AES-256-GCM)");
    return true;
}

bool crypt_decrypt_page(crypt_state *crypt, uint64_t page_number, const uint8_t nonce[CRYPT_NONCE_SIZE],
                        const uint8_t tag[CRYPT_TAG_SIZE], const uint8_t *cipher, uint8_t *plain,
                        bool *out_authentic)
{
    uint8_t aad[8];
    encode_page_number(aad, page_number);
    uint8_t expected_tag[CRYPT_TAG_SIZE];
    memcpy(expected_tag, tag, CRYPT_TAG_SIZE); /* the ctrl takes a non-const pointer */
    int length = 0, final_length = 0;
    if (EVP_DecryptInit_ex(crypt->decrypt, NULL, NULL, NULL, nonce) != 1 ||
        EVP_DecryptUpdate(crypt->decrypt, NULL, &length, aad, (int)sizeof aad) != 1 ||
        EVP_DecryptUpdate(crypt->decrypt, plain, &length, cipher, (int)CRYPT_PAGE_SIZE) != 1 ||
        EVP_CIPHER_CTX_ctrl(crypt->decrypt, EVP_CTRL_GCM_SET_TAG, (int)CRYPT_TAG_SIZE, expected_tag) != 1)
        return fail_openssl("decrypting a page (AES-256-GCM)");
    /* Final fails exactly when the tag does not match. */
    *out_authentic = EVP_DecryptFinal_ex(crypt->decrypt, plain + length, &final_length) == 1 &&
                     length + final_length == (int)CRYPT_PAGE_SIZE;
    ERR_clear_error();
    return true;
}

bool crypt_mac(const crypt_state *crypt, const void *data, size_t length, uint8_t out_mac[CRYPT_MAC_SIZE])
{
    unsigned int mac_length = 0;
    if (!HMAC(EVP_sha256(), crypt->header_key, (int)HEADER_KEY_SIZE, data, length, out_mac, &mac_length) ||
        mac_length != CRYPT_MAC_SIZE)
        return fail_openssl("authenticating a header page (HMAC-SHA256)");
    return true;
}
