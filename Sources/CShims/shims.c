#include "CShims.h"
#include <errno.h>
#include <sqlite3.h>
#include <openssl/evp.h>

int CShims_errno(void) { return errno; }

void *CShims_sqlite_transient(void) { return (void *)SQLITE_TRANSIENT; }

int CShims_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

int CShims_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
