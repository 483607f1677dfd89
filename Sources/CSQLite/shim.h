#ifndef UNDERSTUDY_CSQLITE_SHIM_H
#define UNDERSTUDY_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
