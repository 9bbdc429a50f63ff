#include "wal_write_gathering.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "common/limits.h"

namespace headgrader::store::wal_write_gathering {
namespace {

sqlite3_vfs* base_vfs = nullptr;  // SQLite's default VFS, found once by name()

// A WAL file: SQLite's own file object (`real`, in the same allocation, after this one) and
// the writes gathered for it: `used` bytes that belong at `start`.
struct GatheringFile {
  sqlite3_file base;  // first: SQLite sees a GatheringFile as a sqlite3_file
  sqlite3_file* real;
  std::unique_ptr<unsigned char[]> gathered;  // limits::kSqliteWalGatherBytes, once needed
  sqlite3_int64 start = 0;
  std::size_t used = 0;

  // In pieces of kMostPerWrite: SQLite's unix VFS writes at most 128 KiB - 1 bytes per
  // pwrite (it masks the length with 0x1ffff), so a write of 128 KiB would write nothing and
  // be taken for a full disk.
  static constexpr std::size_t kMostPerWrite = 0x1f000;  // 124 KiB

  int flush() {
    int rc = SQLITE_OK;
    for (std::size_t done = 0; done < used && rc == SQLITE_OK; done += kMostPerWrite) {
      const std::size_t piece = std::min(kMostPerWrite, used - done);
      rc = real->pMethods->xWrite(real, gathered.get() + done, static_cast<int>(piece),
                                  start + static_cast<sqlite3_int64>(done));
    }
    used = 0;  // written, or failed: SQLite rolls back and writes those frames again
    return rc;
  }

  int write(const void* data, int amount, sqlite3_int64 offset) {
    const auto bytes = static_cast<std::size_t>(amount);
    const bool continues = used > 0 && offset == start + static_cast<sqlite3_int64>(used);
    if (used > 0 && (!continues || used + bytes > limits::kSqliteWalGatherBytes)) {
      if (const int rc = flush(); rc != SQLITE_OK) return rc;
    }
    if (bytes > limits::kSqliteWalGatherBytes)
      return real->pMethods->xWrite(real, data, amount, offset);
    if (gathered == nullptr) {
      gathered.reset(new (std::nothrow) unsigned char[limits::kSqliteWalGatherBytes]);
      if (gathered == nullptr) return real->pMethods->xWrite(real, data, amount, offset);
    }
    if (used == 0) start = offset;
    std::memcpy(gathered.get() + used, data, bytes);
    used += bytes;
    return SQLITE_OK;
  }
};

GatheringFile& self(sqlite3_file* file) { return *reinterpret_cast<GatheringFile*>(file); }
sqlite3_file* real(sqlite3_file* file) { return self(file).real; }
const sqlite3_io_methods& methods(sqlite3_file* file) { return *real(file)->pMethods; }

int gathering_close(sqlite3_file* file) {
  GatheringFile& f = self(file);
  const int flushed = f.flush();
  const int closed = f.real->pMethods->xClose(f.real);
  f.~GatheringFile();
  return flushed != SQLITE_OK ? flushed : closed;
}

int gathering_read(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
  if (const int rc = self(file).flush(); rc != SQLITE_OK) return rc;
  return methods(file).xRead(real(file), data, amount, offset);
}

int gathering_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  return self(file).write(data, amount, offset);
}

int gathering_truncate(sqlite3_file* file, sqlite3_int64 size) {
  if (const int rc = self(file).flush(); rc != SQLITE_OK) return rc;
  return methods(file).xTruncate(real(file), size);
}

int gathering_sync(sqlite3_file* file, int flags) {
  if (const int rc = self(file).flush(); rc != SQLITE_OK) return rc;
  return methods(file).xSync(real(file), flags);
}

int gathering_file_size(sqlite3_file* file, sqlite3_int64* size) {
  if (const int rc = self(file).flush(); rc != SQLITE_OK) return rc;
  return methods(file).xFileSize(real(file), size);
}

int gathering_lock(sqlite3_file* file, int level) { return methods(file).xLock(real(file), level); }

int gathering_unlock(sqlite3_file* file, int level) {
  return methods(file).xUnlock(real(file), level);
}

int gathering_check_reserved_lock(sqlite3_file* file, int* out) {
  return methods(file).xCheckReservedLock(real(file), out);
}

int gathering_file_control(sqlite3_file* file, int op, void* arg) {
  if (const int rc = self(file).flush(); rc != SQLITE_OK) return rc;
  return methods(file).xFileControl(real(file), op, arg);
}

int gathering_sector_size(sqlite3_file* file) { return methods(file).xSectorSize(real(file)); }

int gathering_device_characteristics(sqlite3_file* file) {
  return methods(file).xDeviceCharacteristics(real(file));
}

// A WAL file has no shared memory or memory map of its own (those are the database file's);
// these pass on whatever SQLite might ask, for completeness.
int gathering_shm_map(sqlite3_file* file, int region, int size, int extend, void volatile** out) {
  if (methods(file).iVersion < 2) return SQLITE_IOERR;
  return methods(file).xShmMap(real(file), region, size, extend, out);
}

int gathering_shm_lock(sqlite3_file* file, int offset, int n, int flags) {
  if (methods(file).iVersion < 2) return SQLITE_IOERR;
  return methods(file).xShmLock(real(file), offset, n, flags);
}

void gathering_shm_barrier(sqlite3_file* file) {
  if (methods(file).iVersion >= 2) methods(file).xShmBarrier(real(file));
}

int gathering_shm_unmap(sqlite3_file* file, int delete_flag) {
  if (methods(file).iVersion < 2) return SQLITE_OK;
  return methods(file).xShmUnmap(real(file), delete_flag);
}

int gathering_fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
  *out = nullptr;  // "no map": SQLite reads instead
  if (methods(file).iVersion < 3) return SQLITE_OK;
  if (const int rc = self(file).flush(); rc != SQLITE_OK) return rc;
  return methods(file).xFetch(real(file), offset, amount, out);
}

int gathering_unfetch(sqlite3_file* file, sqlite3_int64 offset, void* page) {
  if (methods(file).iVersion < 3) return SQLITE_OK;
  return methods(file).xUnfetch(real(file), offset, page);
}

const sqlite3_io_methods kGatheringMethods = {
    3,
    gathering_close,
    gathering_read,
    gathering_write,
    gathering_truncate,
    gathering_sync,
    gathering_file_size,
    gathering_lock,
    gathering_unlock,
    gathering_check_reserved_lock,
    gathering_file_control,
    gathering_sector_size,
    gathering_device_characteristics,
    gathering_shm_map,
    gathering_shm_lock,
    gathering_shm_barrier,
    gathering_shm_unmap,
    gathering_fetch,
    gathering_unfetch,
};

// Where SQLite's own file object sits in the allocation of a GatheringFile.
constexpr std::size_t kRealOffset = (sizeof(GatheringFile) + alignof(std::max_align_t) - 1) /
                                    alignof(std::max_align_t) * alignof(std::max_align_t);

// Other files are opened by the default VFS into the very object SQLite gave: they are its
// own. A WAL file gets a GatheringFile around the default VFS's.
int gathering_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
                   int* out_flags) {
  if ((flags & SQLITE_OPEN_WAL) == 0) {
    return base_vfs->xOpen(base_vfs, name, file, flags, out_flags);
  }
  auto* inner =
      reinterpret_cast<sqlite3_file*>(reinterpret_cast<unsigned char*>(file) + kRealOffset);
  const int rc = base_vfs->xOpen(base_vfs, name, inner, flags, out_flags);
  if (rc != SQLITE_OK || inner->pMethods == nullptr) {
    // SQLite then calls no method, not even xClose, unless pMethods is set.
    if (inner->pMethods != nullptr) inner->pMethods->xClose(inner);
    file->pMethods = nullptr;
    return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
  }
  auto* f = new (file) GatheringFile{};
  f->base.pMethods = &kGatheringMethods;
  f->real = inner;
  return SQLITE_OK;
}

}  // namespace

const char* name() {
  // The default VFS with a larger file object and its own xOpen; its other methods are the
  // default's, called with this VFS, whose pAppData and limits are the default's too.
  static const char* const registered = []() -> const char* {
    base_vfs = sqlite3_vfs_find(nullptr);
    if (base_vfs == nullptr) return nullptr;
    static sqlite3_vfs vfs = *base_vfs;
    vfs.zName = "headgrader-wal-gathering";
    vfs.szOsFile = static_cast<int>(kRealOffset) + base_vfs->szOsFile;
    vfs.xOpen = gathering_open;
    vfs.pNext = nullptr;
    if (sqlite3_vfs_register(&vfs, /*makeDflt=*/0) != SQLITE_OK) return nullptr;
    return vfs.zName;
  }();
  return registered;
}

}  // namespace headgrader::store::wal_write_gathering
