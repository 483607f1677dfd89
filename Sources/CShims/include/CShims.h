#ifndef UNDERSTUDY_CSHIMS_H
#define UNDERSTUDY_CSHIMS_H
// Real functions for C macros and values Swift cannot import.
// Each function is named after the library whose macro it wraps.
#include <stddef.h>
#include <stdint.h>

/// errno of the calling thread.
int CShims_errno(void);
/// SQLITE_TRANSIENT as a destructor value usable from Swift.
void *CShims_sqlite_transient(void);

/// OpenSSL's EVP_PKEY_PUBLIC_KEY selection for EVP_PKEY_fromdata (a composite macro).
int CShims_EVP_PKEY_PUBLIC_KEY(void);
/// OpenSSL's EVP_PKEY_KEYPAIR selection for EVP_PKEY_fromdata (a composite macro).
int CShims_EVP_PKEY_KEYPAIR(void);

#endif
