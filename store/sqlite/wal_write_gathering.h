// A SQLite VFS over the default one whose WAL files gather consecutive writes and hand them to
// the kernel as one. SQLite writes each WAL frame as two calls, its 24-byte header and then its
// page, so a group commit of 30 pages was 60 pwrite calls; under load they were a quarter of
// the committer thread's time (docs/benchmarks-store.md, 'Write gathering'). Gathered, they are one
// call per 124 KiB.
//
// When the gathered bytes reach the file: before SQLite syncs it, reads it, asks its size,
// truncates it, passes it a file control or closes it; before a write that does not continue
// them; and once they would pass limits::kSqliteWalGatherBytes. Why that is enough: a commit
// becomes visible to other connections only once SQLite has written the WAL's index header,
// and with synchronous=FULL (every connection of the store, sqlite_connection.cc) it syncs
// the WAL before it does that; frames not yet committed are read only by the connection that
// wrote them, through this same file object. A process that dies loses what was gathered, as
// it would lose a transaction it had not committed; what a commit has synced is on disk.
// Files other than WAL files are SQLite's own, untouched.
// Thread-safety: name() may be called from any thread; SQLite calls a file's methods from one
// thread at a time (a connection is used by one thread at a time).
#pragma once

namespace headgrader::store::wal_write_gathering {

// The VFS's name for sqlite3_open_v2, registered (not as the default) the first time.
// nullptr if SQLite has no default VFS to build on.
const char* name();

}  // namespace headgrader::store::wal_write_gathering
