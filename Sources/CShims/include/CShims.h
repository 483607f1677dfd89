#ifndef UNDERSTUDY_CSHIMS_H
#define UNDERSTUDY_CSHIMS_H
// Real functions for C macros and values Swift cannot import, one source file per library.
#include <stddef.h>
#include <stdint.h>

// MARK: glibc (shims_linux.c)

/// errno of the calling thread.
int CShims_errno(void);
/// accept4(2) (a GNU extension Glibc's Swift module does not export). `address` is a sockaddr.
int CShims_accept4(int fd, void *address, unsigned int *length, int flags);
/// pthread_setname_np for the calling thread (GNU extension); names are at most 15 bytes.
int CShims_set_thread_name(const char *name);
/// fallocate(2) with mode 0 (a GNU extension): allocates `length` bytes at `offset`, extending the file.
int CShims_fallocate(int fd, int64_t offset, int64_t length);

// MARK: SQLite (shims_sqlite.c)

/// SQLITE_TRANSIENT as a destructor value usable from Swift.
void *CShims_sqlite_transient(void);

// MARK: OpenSSL (shims_openssl.c)

/// OpenSSL's EVP_PKEY_PUBLIC_KEY selection for EVP_PKEY_fromdata (a composite macro).
int CShims_EVP_PKEY_PUBLIC_KEY(void);
/// OpenSSL's EVP_PKEY_KEYPAIR selection for EVP_PKEY_fromdata (a composite macro).
int CShims_EVP_PKEY_KEYPAIR(void);

// TLS (UnderstudyTLS). Opaque pointers are OpenSSL's BIO, SSL_CTX, SSL and X509.
struct bio_st;
struct ssl_ctx_st;
struct ssl_st;
struct x509_st;
/// BIO_set_mem_eof_return: -1 makes an empty memory BIO say "retry" instead of end of file.
int CShims_BIO_set_mem_eof_return(struct bio_st *bio, int value);
/// SSL_CTX_set_min_proto_version / SSL_CTX_set_max_proto_version (TLS1_2_VERSION...); 1 on success.
int CShims_SSL_CTX_set_min_proto_version(struct ssl_ctx_st *ctx, int version);
int CShims_SSL_CTX_set_max_proto_version(struct ssl_ctx_st *ctx, int version);
/// SSL_CTX_set1_groups_list ("X25519:P-256"); 1 on success.
int CShims_SSL_CTX_set1_groups_list(struct ssl_ctx_st *ctx, const char *list);
/// SSL_CTX_set_mode (SSL_MODE_* bits); returns the new mode.
long CShims_SSL_CTX_set_mode(struct ssl_ctx_st *ctx, long mode);
/// SSL_CTX_set_session_cache_mode (SSL_SESS_CACHE_*); returns the previous mode.
long CShims_SSL_CTX_set_session_cache_mode(struct ssl_ctx_st *ctx, long mode);
/// SSL_CTX_add1_chain_cert / SSL_add1_chain_cert: appends a chain certificate (the callee takes a reference).
int CShims_SSL_CTX_add1_chain_cert(struct ssl_ctx_st *ctx, struct x509_st *certificate);
int CShims_SSL_add1_chain_cert(struct ssl_st *ssl, struct x509_st *certificate);
/// SSL_set_tlsext_host_name: the SNI name a client sends; 1 on success.
int CShims_SSL_set_tlsext_host_name(struct ssl_st *ssl, const char *name);
/// SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL): a fresh ex_data slot on SSL objects.
int CShims_SSL_get_ex_new_index(void);
/// SSL_OP_ option bits (defined through the SSL_OP_BIT macro).
uint64_t CShims_SSL_OP_NO_RENEGOTIATION(void);
uint64_t CShims_SSL_OP_NO_TICKET(void);
uint64_t CShims_SSL_OP_NO_COMPRESSION(void);
uint64_t CShims_SSL_OP_CIPHER_SERVER_PREFERENCE(void);

#endif
