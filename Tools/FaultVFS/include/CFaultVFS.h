#ifndef OPENSWIFTDATA_FAULT_VFS_H
#define OPENSWIFTDATA_FAULT_VFS_H

// A SQLite VFS that fails chosen I/O calls on purpose, for the fault-injection probes. It wraps the
// default VFS and registers itself as the new default, so every connection the process opens
// afterwards goes through it. Thread-safe: the counters are atomic.

/// The kinds of call the VFS can fail.
enum {
    OSD_FAULT_READ = 1,       ///< xRead: SQLITE_IOERR_READ
    OSD_FAULT_WRITE = 2,      ///< xWrite: SQLITE_IOERR_WRITE
    OSD_FAULT_SYNC = 4,       ///< xSync: SQLITE_IOERR_FSYNC
    OSD_FAULT_TRUNCATE = 8,   ///< xTruncate: SQLITE_IOERR_TRUNCATE
    OSD_FAULT_SHM = 16,       ///< xShmMap: SQLITE_IOERR_SHMMAP
    OSD_FAULT_ALL = 31
};

/// Registers the VFS as the process's default. Returns a SQLite result code; calling it again
/// does nothing.
int osd_fault_vfs_install(void);

/// Fails the `countdown`-th call (1: the next) among the kinds in `kinds`. With `sticky`, that
/// call and every later call of those kinds fail until `osd_fault_disarm`, as a disk that went
/// away; otherwise only that one call fails, as a transient error.
void osd_fault_arm(int kinds, long countdown, int sticky);

/// Stops failing calls.
void osd_fault_disarm(void);

/// The number of calls of the kinds in `kinds` made since the last arm or reset.
long osd_fault_calls(int kinds);

/// Whether a call failed since the last arm.
int osd_fault_fired(void);

/// Sets the call counters to zero.
void osd_fault_reset_counts(void);

#endif
