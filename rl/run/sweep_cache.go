package run

import (
	"context"
	"os"
)

// A sweep run under a context that carries a Cache (WithCache) takes each
// cell that has a Config from the cache when it holds the cell, and
// stores each such cell it runs to completion; the cells it took are
// listed in its attempt's provenance and console.

type cacheKey struct{}

// WithCache is ctx carrying the result cache c for the sweeps run under
// it (nil: none).
func WithCache(ctx context.Context, c *Cache) context.Context {
	return context.WithValue(ctx, cacheKey{}, c)
}

func cacheOf(ctx context.Context) *Cache {
	c, _ := ctx.Value(cacheKey{}).(*Cache)
	return c
}

type jobsKey struct{}

// WithJobs is ctx under which a sweep runs up to n of its cells at once
// (n < 1: one). Each cell is a run of its own, with its own model, data
// and random streams, and the kernels' results do not depend on how many
// goroutines share their work, so a sweep's files are the same whatever
// n is (TestStudyInParallelIsTheSame); only the order of its progress
// lines differs. It pays where one run leaves cores idle: the small
// policies' matrices are too small to keep many cores busy (Table 1's 42
// runs kept about 1.6 of 2 cores busy with two at once; README, "-jobs").
func WithJobs(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, jobsKey{}, n)
}

func jobsOf(ctx context.Context) int {
	n, _ := ctx.Value(jobsKey{}).(int)
	return max(n, 1)
}

// CachedCell is a cell an attempt took from a cache, in provenance.json.
type CachedCell struct {
	Cell  string `json:"cell"`  // Cell.Key
	Key   string `json:"key"`   // the entry's key (Cache.Key)
	Cache string `json:"cache"` // the cache's folder
}

// cellKey is a cell's cache entry: its key and canonical config, or ""
// when the sweep has no cache or the cell no Config.
type cellKey struct {
	key   string
	canon []byte
}

// fromCache fills the cell from the cache when it holds it, and says so;
// an entry that cannot be trusted, or whose files the cell cannot take
// back (Restore), is reported and left, and the cell runs from an empty
// folder (from, the steps it would continue from, becomes −1).
func (s *Sweep) fromCache(c Cell, p *Progress, from *int) (cellKey, bool, error) {
	if s.cache == nil || c.Config == nil {
		return cellKey{}, false, nil
	}
	cfg, err := c.Config()
	if err != nil || cfg == nil {
		return cellKey{}, false, err
	}
	var k cellKey
	if k.key, k.canon, err = s.cache.Key(cfg); err != nil {
		return k, false, err
	}
	hit, err := s.cache.Fetch(k.key, k.canon, c.Dir)
	if err == nil && hit {
		p.Locked(func() { err = c.Restore() })
	}
	if err != nil {
		p.Printf("%s: cache entry %s ignored: %v\n", c.Key, k.key, err)
		*from = -1
		return k, false, os.RemoveAll(c.Dir)
	}
	if hit {
		p.Locked(func() { s.cached = append(s.cached, CachedCell{Cell: c.Key, Key: k.key, Cache: s.cache.Dir}) })
	}
	return k, hit, nil
}

// toCache stores a cell that ran to completion; a failure to store is
// reported, not the sweep's.
func (s *Sweep) toCache(c Cell, k cellKey, p *Progress) {
	if k.key == "" {
		return
	}
	if err := s.cache.Store(k.key, k.canon, c.Dir); err != nil {
		p.Printf("%s: not stored in the cache: %v\n", c.Key, err)
		return
	}
	p.Printf("%s: stored in the cache as %s\n", c.Key, k.key)
}
