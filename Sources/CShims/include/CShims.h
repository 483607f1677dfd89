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

#endif
