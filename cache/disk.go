package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// disk is the durable tier: one bbolt file per platform. Bucket "e" holds
// encoded entries by key, bucket "i" a small index record per key
// (keepUntil, storedAt, size) so that bounding and sweeping never read the
// bodies. Every Put is committed (and synced) before the answer leaves, so
// an entry survives kill -9 and power loss alike.
type disk struct {
	path   string
	maxB   int64
	logger *zap.Logger

	mu      sync.Mutex // guards db swaps (set aside) and the counters
	db      *bolt.DB
	entries int64
	bytes   int64
}

var (
	bucketEntries = []byte("e")
	bucketIndex   = []byte("i")
)

const indexLen = 24

// errInUse: the durable file is locked by another process.
var errInUse = errors.New("durable cache file is in use by another process")

// openDisk opens (or creates) the file at path. A file that cannot be
// opened as a cache is renamed aside (path + ".damaged-<unix>") and
// replaced by an empty one; it never stops start-up. Nothing in an intact
// file is removed at start.
func openDisk(path string, maxBytes int64, now time.Time, logger *zap.Logger) (*disk, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cache directory: %w", err)
	}
	d := &disk{path: path, maxB: maxBytes, logger: logger}
	db, n, b, err := openBolt(path)
	if errors.Is(err, bolt.ErrTimeout) {
		// Another process holds the file: it is not damaged, leave it be.
		return nil, errInUse
	}
	if err != nil {
		aside, rerr := setAsideFile(path, now)
		if rerr != nil {
			return nil, fmt.Errorf("opening %s: %v; setting it aside: %w", path, err, rerr)
		}
		logger.Error("durable cache file is damaged; set aside, starting empty",
			zap.String("file", path), zap.String("set_aside_as", aside), zap.Error(err))
		db, n, b, err = openBolt(path)
		if err != nil {
			return nil, fmt.Errorf("opening a fresh %s: %w", path, err)
		}
	}
	d.db, d.entries, d.bytes = db, n, b
	return d, nil
}

// openBolt opens the file and counts its entries from the index. A panic
// inside bbolt (it panics on some damaged pages) becomes an error.
func openBolt(path string) (db *bolt.DB, entries, size int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			if db != nil {
				_ = db.Close()
			}
			db, err = nil, fmt.Errorf("bbolt panicked: %v", r)
		}
	}()
	db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: openTimeout, NoFreelistSync: true})
	if err != nil {
		return nil, 0, 0, err
	}
	db.MaxBatchDelay = 2 * time.Millisecond
	err = db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketEntries); err != nil {
			return err
		}
		ib, err := tx.CreateBucketIfNotExists(bucketIndex)
		if err != nil {
			return err
		}
		return ib.ForEach(func(k, v []byte) error {
			if len(v) != indexLen {
				return errors.New("bad index record")
			}
			entries++
			size += int64(binary.LittleEndian.Uint64(v[16:]))
			return nil
		})
	})
	if err != nil {
		_ = db.Close()
		return nil, 0, 0, err
	}
	return db, entries, size, nil
}

// openTimeout is how long opening waits for another process's lock on
// the file. Short: a second instance on the same machine and cache
// directory must start at once (memory-only for that platform), not wait
// for a lock the first instance holds as long as it runs.
var openTimeout = 100 * time.Millisecond

func setAsideFile(path string, now time.Time) (string, error) {
	aside := fmt.Sprintf("%s.damaged-%d", path, now.Unix())
	if err := os.Rename(path, aside); err != nil && !os.IsNotExist(err) {
		return "", err
	}
	return aside, nil
}

func putIndex(idx []byte, keepUntil, storedAt time.Time, size int) {
	binary.LittleEndian.PutUint64(idx[0:], uint64(keepUntil.UnixNano()))
	binary.LittleEndian.PutUint64(idx[8:], uint64(storedAt.UnixNano()))
	binary.LittleEndian.PutUint64(idx[16:], uint64(size))
}

// get returns a copy of the stored bytes, or nil.
func (d *disk) get(key string) (val []byte, err error) {
	d.mu.Lock()
	db := d.db
	d.mu.Unlock()
	if db == nil {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			val, err = nil, fmt.Errorf("bbolt panicked: %v", r)
			d.damaged(db, err)
		}
	}()
	err = db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketEntries).Get([]byte(key)); v != nil {
			val = append([]byte(nil), v...)
		}
		return nil
	})
	return val, err
}

// put stores the encoded entry and commits it, then keeps the file within
// its bound.
func (d *disk) put(key string, val []byte, storedAt, keepUntil time.Time) error {
	d.mu.Lock()
	db := d.db
	d.mu.Unlock()
	if db == nil {
		return errors.New("durable tier closed")
	}
	var idx [indexLen]byte
	putIndex(idx[:], keepUntil, storedAt, len(val))
	var dEntries, dBytes int64
	// Batch: concurrent stores share one commit (and one fsync). The
	// function may run twice if its batch fails, so it starts from zero.
	err := db.Batch(func(tx *bolt.Tx) error {
		dEntries, dBytes = 0, 0
		ib := tx.Bucket(bucketIndex)
		if old := ib.Get([]byte(key)); len(old) == indexLen {
			dEntries--
			dBytes -= int64(binary.LittleEndian.Uint64(old[16:]))
		}
		if err := tx.Bucket(bucketEntries).Put([]byte(key), val); err != nil {
			return err
		}
		dEntries++
		dBytes += int64(len(val))
		return ib.Put([]byte(key), idx[:])
	})
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.entries += dEntries
	d.bytes += dBytes
	over := d.maxB > 0 && d.bytes > d.maxB
	d.mu.Unlock()
	if over {
		_, err = d.shrink(storedAt)
	}
	return err
}

// del removes one key.
func (d *disk) del(key string) error {
	d.mu.Lock()
	db := d.db
	d.mu.Unlock()
	if db == nil {
		return nil
	}
	var n, b int64
	err := db.Update(func(tx *bolt.Tx) error {
		n, b = delKey(tx, []byte(key))
		return nil
	})
	d.account(-n, -b)
	return err
}

func delKey(tx *bolt.Tx, key []byte) (entries, size int64) {
	ib := tx.Bucket(bucketIndex)
	old := ib.Get(key)
	if old == nil {
		return 0, 0
	}
	if len(old) == indexLen {
		size = int64(binary.LittleEndian.Uint64(old[16:]))
	}
	_ = ib.Delete(key)
	_ = tx.Bucket(bucketEntries).Delete(key)
	return 1, size
}

func (d *disk) account(entries, size int64) {
	d.mu.Lock()
	d.entries += entries
	d.bytes += size
	d.mu.Unlock()
}

// sweep removes every entry whose last stale window ended before now.
func (d *disk) sweep(now time.Time) (int, error) {
	return d.evict(now, false)
}

// shrink removes expired entries, then the oldest, until the file holds at
// most 90 % of its bound.
func (d *disk) shrink(now time.Time) (int, error) {
	return d.evict(now, true)
}

func (d *disk) evict(now time.Time, toBound bool) (int, error) {
	d.mu.Lock()
	db := d.db
	d.mu.Unlock()
	if db == nil {
		return 0, nil
	}
	type rec struct {
		key      []byte
		storedAt int64
		size     int64
	}
	var expired, live []rec
	var total int64
	err := db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketIndex).ForEach(func(k, v []byte) error {
			if len(v) != indexLen {
				expired = append(expired, rec{key: append([]byte(nil), k...)})
				return nil
			}
			r := rec{key: append([]byte(nil), k...), storedAt: int64(binary.LittleEndian.Uint64(v[8:])), size: int64(binary.LittleEndian.Uint64(v[16:]))}
			total += r.size
			if int64(binary.LittleEndian.Uint64(v[0:])) < now.UnixNano() {
				expired = append(expired, r)
			} else {
				live = append(live, r)
			}
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	victims := expired
	if toBound {
		target := d.maxB * 9 / 10
		for _, r := range expired {
			total -= r.size
		}
		if total > target {
			sort.Slice(live, func(i, j int) bool { return live[i].storedAt < live[j].storedAt })
			for _, r := range live {
				if total <= target {
					break
				}
				victims = append(victims, r)
				total -= r.size
			}
		}
	}
	if len(victims) == 0 {
		return 0, nil
	}
	var n, b int64
	err = db.Update(func(tx *bolt.Tx) error {
		for _, r := range victims {
			dn, db := delKey(tx, r.key)
			n += dn
			b += db
		}
		return nil
	})
	d.account(-n, -b)
	return int(n), err
}

// purge removes every entry.
func (d *disk) purge() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db == nil {
		return nil
	}
	err := d.db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketEntries, bucketIndex} {
			if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
				return err
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		d.entries, d.bytes = 0, 0
	}
	return err
}

// damaged sets a file that failed at run time aside and starts an empty
// one, so one bad page never keeps failing requests.
func (d *disk) damaged(db *bolt.DB, cause error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db != db {
		return // already handled
	}
	_ = db.Close()
	d.db = nil
	aside, err := setAsideFile(d.path, time.Now())
	d.logger.Error("durable cache file failed while running; set aside",
		zap.String("file", d.path), zap.String("set_aside_as", aside), zap.NamedError("cause", cause), zap.Error(err))
	if ndb, n, b, err := openBolt(d.path); err == nil {
		d.db, d.entries, d.bytes = ndb, n, b
	} else {
		d.logger.Error("durable cache tier off: cannot open a fresh file", zap.Error(err))
		d.entries, d.bytes = 0, 0
	}
}

func (d *disk) stats() (entries, size int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.entries, d.bytes
}

func (d *disk) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db == nil {
		return nil
	}
	err := d.db.Close()
	d.db = nil
	return err
}
