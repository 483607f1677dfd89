#include "CShims.h"
#include <openssl/evp.h>

int CShims_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

int CShims_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
