#include "CFaultVFS.h"
#include <sqlite3.h>
#include <string.h>

// A file of this VFS: our header, then the wrapped VFS's own file (szOsFile bytes) right after it.
typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
} FaultFile;

static sqlite3_vfs fault_vfs;
static sqlite3_vfs *real_vfs;
static sqlite3_io_methods fault_methods;

static long armed_kinds;
static long countdown;
static int sticky;
static int fired;
static long calls[5];

static int kind_index(int kind) {
    switch (kind) {
    case OSD_FAULT_READ: return 0;
    case OSD_FAULT_WRITE: return 1;
    case OSD_FAULT_SYNC: return 2;
    case OSD_FAULT_TRUNCATE: return 3;
    default: return 4;
    }
}

/// Counts a call of `kind` and says whether it must fail.
static int should_fail(int kind) {
    __atomic_add_fetch(&calls[kind_index(kind)], 1, __ATOMIC_SEQ_CST);
    if ((__atomic_load_n(&armed_kinds, __ATOMIC_SEQ_CST) & kind) == 0) return 0;
    long left = __atomic_sub_fetch(&countdown, 1, __ATOMIC_SEQ_CST);
    if (left == 0 || (left < 0 && __atomic_load_n(&sticky, __ATOMIC_SEQ_CST))) {
        __atomic_store_n(&fired, 1, __ATOMIC_SEQ_CST);
        return 1;
    }
    return 0;
}

static sqlite3_file *real_file(sqlite3_file *file) { return ((FaultFile *)file)->real; }

static int fault_close(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    int rc = real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
    file->pMethods = 0;
    return rc;
}
static int fault_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    if (should_fail(OSD_FAULT_READ)) return SQLITE_IOERR_READ;
    sqlite3_file *real = real_file(file);
    return real->pMethods->xRead(real, buffer, amount, offset);
}
static int fault_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    if (should_fail(OSD_FAULT_WRITE)) return SQLITE_IOERR_WRITE;
    sqlite3_file *real = real_file(file);
    return real->pMethods->xWrite(real, buffer, amount, offset);
}
static int fault_truncate(sqlite3_file *file, sqlite3_int64 size) {
    if (should_fail(OSD_FAULT_TRUNCATE)) return SQLITE_IOERR_TRUNCATE;
    sqlite3_file *real = real_file(file);
    return real->pMethods->xTruncate(real, size);
}
static int fault_sync(sqlite3_file *file, int flags) {
    if (should_fail(OSD_FAULT_SYNC)) return SQLITE_IOERR_FSYNC;
    sqlite3_file *real = real_file(file);
    return real->pMethods->xSync(real, flags);
}
static int fault_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xFileSize(real, size);
}
static int fault_lock(sqlite3_file *file, int lock) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xLock(real, lock);
}
static int fault_unlock(sqlite3_file *file, int lock) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xUnlock(real, lock);
}
static int fault_check_reserved_lock(sqlite3_file *file, int *result) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xCheckReservedLock(real, result);
}
static int fault_file_control(sqlite3_file *file, int op, void *argument) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xFileControl(real, op, argument);
}
static int fault_sector_size(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xSectorSize(real);
}
static int fault_device_characteristics(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xDeviceCharacteristics(real);
}
static int fault_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **pointer) {
    if (should_fail(OSD_FAULT_SHM)) return SQLITE_IOERR_SHMMAP;
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmMap(real, region, size, extend, pointer);
}
static int fault_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmLock(real, offset, n, flags);
}
static void fault_shm_barrier(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    real->pMethods->xShmBarrier(real);
}
static int fault_shm_unmap(sqlite3_file *file, int delete_flag) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmUnmap(real, delete_flag);
}
static int fault_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xFetch(real, offset, amount, pointer);
}
static int fault_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xUnfetch(real, offset, pointer);
}

static int fault_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    FaultFile *wrapper = (FaultFile *)file;
    wrapper->real = (sqlite3_file *)&wrapper[1];
    memset(wrapper->real, 0, (size_t)real_vfs->szOsFile);
    int rc = real_vfs->xOpen(real_vfs, name, wrapper->real, flags, out_flags);
    file->pMethods = wrapper->real->pMethods ? &fault_methods : 0;
    return rc;
}
static int fault_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    return real_vfs->xDelete(real_vfs, name, sync_dir);
}
static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, result);
}
static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, out);
}
static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) { (void)vfs; return real_vfs->xDlOpen(real_vfs, name); }
static void fault_dl_error(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; real_vfs->xDlError(real_vfs, size, out); }
static void (*fault_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, handle, symbol);
}
static void fault_dl_close(sqlite3_vfs *vfs, void *handle) { (void)vfs; real_vfs->xDlClose(real_vfs, handle); }
static int fault_randomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return real_vfs->xRandomness(real_vfs, size, out); }
static int fault_sleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return real_vfs->xSleep(real_vfs, microseconds); }
static int fault_current_time(sqlite3_vfs *vfs, double *out) { (void)vfs; return real_vfs->xCurrentTime(real_vfs, out); }
static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return real_vfs->xGetLastError(real_vfs, size, out); }
static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

int osd_fault_vfs_install(void) {
    if (real_vfs) return SQLITE_OK;
    int rc = sqlite3_initialize();
    if (rc != SQLITE_OK) return rc;
    sqlite3_vfs *original = sqlite3_vfs_find(0);
    if (!original || original->iVersion < 2) return SQLITE_ERROR;
    real_vfs = original;

    fault_methods.iVersion = 3;
    fault_methods.xClose = fault_close;
    fault_methods.xRead = fault_read;
    fault_methods.xWrite = fault_write;
    fault_methods.xTruncate = fault_truncate;
    fault_methods.xSync = fault_sync;
    fault_methods.xFileSize = fault_file_size;
    fault_methods.xLock = fault_lock;
    fault_methods.xUnlock = fault_unlock;
    fault_methods.xCheckReservedLock = fault_check_reserved_lock;
    fault_methods.xFileControl = fault_file_control;
    fault_methods.xSectorSize = fault_sector_size;
    fault_methods.xDeviceCharacteristics = fault_device_characteristics;
    fault_methods.xShmMap = fault_shm_map;
    fault_methods.xShmLock = fault_shm_lock;
    fault_methods.xShmBarrier = fault_shm_barrier;
    fault_methods.xShmUnmap = fault_shm_unmap;
    fault_methods.xFetch = fault_fetch;
    fault_methods.xUnfetch = fault_unfetch;

    fault_vfs.iVersion = 2;
    fault_vfs.szOsFile = (int)sizeof(FaultFile) + original->szOsFile;
    fault_vfs.mxPathname = original->mxPathname;
    fault_vfs.zName = "osd-fault";
    fault_vfs.xOpen = fault_open;
    fault_vfs.xDelete = fault_delete;
    fault_vfs.xAccess = fault_access;
    fault_vfs.xFullPathname = fault_full_pathname;
    fault_vfs.xDlOpen = fault_dl_open;
    fault_vfs.xDlError = fault_dl_error;
    fault_vfs.xDlSym = fault_dl_sym;
    fault_vfs.xDlClose = fault_dl_close;
    fault_vfs.xRandomness = fault_randomness;
    fault_vfs.xSleep = fault_sleep;
    fault_vfs.xCurrentTime = fault_current_time;
    fault_vfs.xGetLastError = fault_get_last_error;
    fault_vfs.xCurrentTimeInt64 = fault_current_time_int64;
    return sqlite3_vfs_register(&fault_vfs, 1);
}

void osd_fault_arm(int kinds, long count, int is_sticky) {
    __atomic_store_n(&armed_kinds, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fired, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&sticky, is_sticky, __ATOMIC_SEQ_CST);
    __atomic_store_n(&countdown, count, __ATOMIC_SEQ_CST);
    osd_fault_reset_counts();
    __atomic_store_n(&armed_kinds, kinds, __ATOMIC_SEQ_CST);
}

void osd_fault_disarm(void) { __atomic_store_n(&armed_kinds, 0, __ATOMIC_SEQ_CST); }

long osd_fault_calls(int kinds) {
    long total = 0;
    for (int bit = 0; bit < 5; bit++) {
        if (kinds & (1 << bit)) total += __atomic_load_n(&calls[bit], __ATOMIC_SEQ_CST);
    }
    return total;
}

int osd_fault_fired(void) { return __atomic_load_n(&fired, __ATOMIC_SEQ_CST); }

void osd_fault_reset_counts(void) {
    for (int bit = 0; bit < 5; bit++) __atomic_store_n(&calls[bit], 0, __ATOMIC_SEQ_CST);
}
