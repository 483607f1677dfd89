#include "CShims.h"
#include <errno.h>
#include <sqlite3.h>

int CShims_errno(void) { return errno; }

void *CShims_sqlite_transient(void) { return (void *)SQLITE_TRANSIENT; }
