#include "CShims.h"
#include <openssl/evp.h>

int CShims_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

int CShims_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }

// MARK: TLS (UnderstudyTLS): macros over SSL_ctrl / SSL_CTX_ctrl / BIO_ctrl, and SSL_OP_ bits.
#include <openssl/bio.h>
#include <openssl/ssl.h>

int CShims_BIO_set_mem_eof_return(BIO *bio, int value) { return (int)BIO_set_mem_eof_return(bio, value); }

int CShims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }

int CShims_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }

int CShims_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return (int)SSL_CTX_set1_groups_list(ctx, list); }

long CShims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }

long CShims_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }

int CShims_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *certificate) { return (int)SSL_CTX_add1_chain_cert(ctx, certificate); }

int CShims_SSL_add1_chain_cert(SSL *ssl, X509 *certificate) { return (int)SSL_add1_chain_cert(ssl, certificate); }

int CShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }

int CShims_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

uint64_t CShims_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }

uint64_t CShims_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }

uint64_t CShims_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }

uint64_t CShims_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
