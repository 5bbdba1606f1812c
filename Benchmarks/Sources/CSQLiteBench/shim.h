#ifndef OPENSWIFTDATA_CSQLITE_SHIM_H
#define OPENSWIFTDATA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT as a typed value: Swift cannot import the macro's cast of -1.
static inline sqlite3_destructor_type osd_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC as a typed value.
static inline sqlite3_destructor_type osd_sqlite_static(void) { return SQLITE_STATIC; }
#endif
