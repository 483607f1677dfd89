#define _GNU_SOURCE
#include "CShims.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>

int CShims_errno(void) { return errno; }

int CShims_accept4(int fd, void *address, unsigned int *length, int flags) {
    return accept4(fd, (struct sockaddr *)address, (socklen_t *)length, flags);
}

int CShims_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

int CShims_fallocate(int fd, int64_t offset, int64_t length) { return fallocate(fd, 0, (off_t)offset, (off_t)length); }
