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

/// accept4(2) (a GNU extension Glibc's Swift module does not export). `address` is a sockaddr.
int CShims_accept4(int fd, void *address, unsigned int *length, int flags);
/// pthread_setname_np for the calling thread (GNU extension); names are at most 15 bytes.
int CShims_set_thread_name(const char *name);

#endif
