#include "CShims.h"
#include <sqlite3.h>

void *CShims_sqlite_transient(void) { return (void *)SQLITE_TRANSIENT; }
